package io.thriftnio.grizzly.custom;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.grizzly.ThriftClientFilter;
import io.thriftnio.grizzly.ThriftFrameFilter;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A user's own client chain ending in {@link ThriftClientFilter}, from outside the package. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CustomClientChainTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();

  @Test
  void aSinkRegisteredOnAUsersOwnChainReceivesTheResponseFrames() throws Exception {
    ThriftServer server =
        GrizzlyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocol(PROTOCOL)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    TCPNIOTransport transport = TCPNIOTransportBuilder.newInstance().build();
    transport.setProcessor(
        FilterChainBuilder.stateless()
            .add(new TransportFilter())
            .add(new ThriftFrameFilter(64 * 1024))
            .add(new ThriftClientFilter())
            .build());
    try (server) {
      transport.start();
      Connection<?> connection = transport.connect(server.localAddress()).get(10, TimeUnit.SECONDS);
      CompletableFuture<ByteBuffer> response = new CompletableFuture<>();
      CompletableFuture<Throwable> closed = new CompletableFuture<>();
      ThriftClientFilter.register(
          connection,
          new ThriftClientFilter.FrameSink() {
            @Override
            public void onFrame(ByteBuffer payload) {
              response.complete(payload);
            }

            @Override
            public void onClosed(Throwable cause) {
              closed.complete(cause);
            }
          });
      byte[] call =
          RawConnection.encodeCall(
              PROTOCOL, "echo", 7, new BenchService.echo_args(Payloads.of(32, 7)));
      connection.write(Buffers.wrap(connection.getMemoryManager(), RawConnection.frame(call)));

      ByteBuffer payload = response.get(10, TimeUnit.SECONDS);
      byte[] bytes = new byte[payload.remaining()];
      payload.get(bytes);
      BenchService.echo_result result = new BenchService.echo_result();
      TMessage reply = RawConnection.decodeReply(PROTOCOL, bytes, result);
      assertThat(reply.seqid).isEqualTo(7);
      assertThat(Payloads.check(result.bufferForSuccess(), 32, 7)).isTrue();
      assertThat(connection.isOpen()).as("the connection stays open for the next call").isTrue();

      connection.closeSilently();
      assertThat(closed.get(10, TimeUnit.SECONDS)).as("orderly close, no cause").isNull();
    } finally {
      transport.shutdownNow();
    }
  }
}
