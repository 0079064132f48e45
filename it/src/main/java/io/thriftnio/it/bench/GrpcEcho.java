package io.thriftnio.it.bench;

import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The one gRPC method of the {@code grpc/...} rows and the {@code grpc} client kind: a unary {@code
 * thriftnio.bench.Echo/echo} that answers with the bytes it was sent, through a byte-array
 * marshaller (no protobuf), the gRPC counterpart of {@code BenchService.echo(binary)}.
 *
 * <p>Both sides run on gRPC-java's own (shaded) Netty: epoll where its native library loads (Linux
 * x86_64 and aarch64), else NIO ({@link #TRANSPORT} says which).
 */
final class GrpcEcho {

  private GrpcEcho() {}

  /** The service's name. */
  static final String SERVICE = "thriftnio.bench.Echo";

  /**
   * The largest message either side accepts: above the bench's largest payload ({@link
   * MatrixCommand#MAX_SIZE}), where gRPC's default is 4 MiB.
   */
  static final int MAX_MESSAGE = 32 << 20;

  /** Whether the shaded Netty's epoll transport loads here. */
  static final boolean EPOLL = Epoll.isAvailable();

  /** {@code epoll} or {@code nio}: the event loops of both sides. */
  static final String TRANSPORT = EPOLL ? "epoll" : "nio";

  /** A byte array as itself: the message is the payload. */
  static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          // gRPC sizes a ByteArrayInputStream by available() and writes it in one copy.
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            if (stream instanceof KnownLength) {
              // gRPC's deframed message knows its length: one exact array, no growing buffer.
              byte[] bytes = new byte[stream.available()];
              int read = stream.readNBytes(bytes, 0, bytes.length);
              if (read != bytes.length) {
                throw new IOException(
                    "message: " + read + " bytes read (expected: " + bytes.length + ")");
              }
              return bytes;
            }
            return stream.readAllBytes();
          } catch (IOException e) {
            throw Status.INTERNAL
                .withDescription("cannot read an echo message: " + e.getMessage())
                .withCause(e)
                .asRuntimeException();
          }
        }
      };

  /** {@code thriftnio.bench.Echo/echo}, unary, bytes in and out. */
  static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "echo"))
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  /** The service: {@code echo} answers with its request. */
  static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            ECHO,
            ServerCalls.asyncUnaryCall(
                (request, reply) -> {
                  reply.onNext(request);
                  reply.onCompleted();
                }))
        .build();
  }

  /**
   * An event loop group of {@link #TRANSPORT}.
   *
   * @param threads its threads
   * @param name its threads' name prefix
   */
  static EventLoopGroup group(int threads, String name) {
    return new MultiThreadIoEventLoopGroup(
        threads,
        new DefaultThreadFactory(name, true),
        EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
  }

  /** The server socket channel of {@link #TRANSPORT}. */
  static Class<? extends ServerChannel> serverChannel() {
    return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** The client socket channel of {@link #TRANSPORT}. */
  static Class<? extends Channel> channel() {
    return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }
}
