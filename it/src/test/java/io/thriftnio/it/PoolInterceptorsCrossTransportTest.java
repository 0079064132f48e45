package io.thriftnio.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.EchoCountingHandler;
import io.thriftnio.testkit.RecordingClientInterceptor;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.thrift.TException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pool interceptors over this library's own connections, on each transport: the sync pool over the
 * transport's sync transports and the channel pool over its channels, each to a server of the same
 * transport, see the call and its endpoint, and a refused call never reaches the server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoolInterceptorsCrossTransportTest {

  enum Transport {
    NETTY(NettyThriftServer::builder, () -> NettyClientIo.create(1)),
    GRIZZLY(GrizzlyThriftServer::builder, GrizzlyClientIo::create);

    final Supplier<ServerBuilder<?>> server;
    final Supplier<ClientIo> resources;

    Transport(Supplier<ServerBuilder<?>> server, Supplier<ClientIo> resources) {
      this.server = server;
      this.resources = resources;
    }
  }

  private static final TException NO = new TException("no second echo");

  /** Refuses every echo after the first. */
  private static ClientInterceptor oneEcho() {
    AtomicInteger echoes = new AtomicInteger();
    return new ClientInterceptor() {
      @Override
      public void beforeCall(ClientCallContext context) throws TException {
        if (context.methodName().equals("echo") && echoes.incrementAndGet() > 1) {
          throw NO;
        }
      }
    };
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void syncAndChannelPoolsOverTheTransportsConnections(Transport transport) throws Exception {
    EchoCountingHandler handler = new EchoCountingHandler();
    RecordingClientInterceptor syncRecorder = new RecordingClientInterceptor();
    RecordingClientInterceptor channelRecorder = new RecordingClientInterceptor();
    try (ThriftServer server =
            transport
                .server
                .get()
                .processor(new BenchService.Processor<>(handler))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .start();
        ClientIo resources = transport.resources.get();
        ThriftClientPool<BenchService.Client> sync =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(server.localAddress())
                .transportFactory(ClientTransportFactory.of(resources, ClientOptions.defaults()))
                .interceptors(List.of(syncRecorder, oneEcho()))
                .build();
        ThriftChannelPool<BenchService.Client> channels =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.defaults())
                .endpoints(server.localAddress())
                .interceptors(List.of(channelRecorder, oneEcho()))
                .build()) {
      sync.call(c -> c.echo(ByteBuffer.allocate(2)));
      assertThatThrownBy(() -> sync.call(c -> c.echo(ByteBuffer.allocate(2)))).isSameAs(NO);
      channels
          .call(c -> c.send_echo(ByteBuffer.allocate(2)), BenchService.Client::recv_echo)
          .get(10, TimeUnit.SECONDS);
      assertThatThrownBy(
              () ->
                  channels
                      .call(
                          c -> c.send_echo(ByteBuffer.allocate(2)), BenchService.Client::recv_echo)
                      .get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCause(NO);

      assertThat(handler.echoes()).isEqualTo(2);
      for (RecordingClientInterceptor r : List.of(syncRecorder, channelRecorder)) {
        assertThat(r.outcomes()).containsExactly(CallOutcome.SUCCESS, CallOutcome.REFUSED);
        assertThat(r.ended())
            .allSatisfy(
                e -> {
                  assertThat(e.context().methodName()).isEqualTo("echo");
                  assertThat(e.context().remoteAddress()).isEqualTo(server.localAddress());
                });
      }
    }
  }
}
