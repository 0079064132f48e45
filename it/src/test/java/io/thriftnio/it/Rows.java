package io.thriftnio.it;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The server rows and client kinds of the integration runs: every server and strategy of both
 * transports, and every client this library offers. Client resources are shared by all tests and
 * live as long as the test JVM.
 */
public final class Rows {

  private Rows() {}

  /** A server implementation with one strategy. */
  public record Server(String name, Supplier<ServerBuilder<?>> builder, IoStrategy strategy) {
    @Override
    public String toString() {
      return name;
    }
  }

  public static final Server NETTY_SAME_THREAD =
      new Server("netty/same-thread", NettyThriftServer::builder, IoStrategy.SAME_THREAD);
  public static final Server NETTY_WORKER =
      new Server("netty/worker", NettyThriftServer::builder, IoStrategy.WORKER);
  public static final Server GRIZZLY_SAME_THREAD =
      new Server("grizzly/same-thread", GrizzlyThriftServer::builder, IoStrategy.SAME_THREAD);
  public static final Server GRIZZLY_WORKER =
      new Server("grizzly/worker", GrizzlyThriftServer::builder, IoStrategy.WORKER);
  public static final Server GRIZZLY_LEADER_FOLLOWER =
      new Server(
          "grizzly/leader-follower", GrizzlyThriftServer::builder, IoStrategy.LEADER_FOLLOWER);

  public static final List<Server> NETTY_SERVERS = List.of(NETTY_SAME_THREAD, NETTY_WORKER);
  public static final List<Server> GRIZZLY_SERVERS =
      List.of(GRIZZLY_SAME_THREAD, GRIZZLY_WORKER, GRIZZLY_LEADER_FOLLOWER);

  private static final NettyClientIo NETTY = NettyClientIo.create(2);
  private static final GrizzlyClientIo GRIZZLY = GrizzlyClientIo.create(2);

  public static final ClientKind NETTY_SYNC =
      ClientKinds.syncTransport("netty-sync", address -> NETTY.openTransport(address));

  public static final ClientKind NETTY_ASYNC =
      ClientKinds.channel("netty-async", address -> NETTY.openChannel(address));

  public static final ClientKind GRIZZLY_SYNC =
      ClientKinds.syncTransport("grizzly-sync", address -> GRIZZLY.openTransport(address));

  public static final ClientKind GRIZZLY_ASYNC =
      ClientKinds.channel("grizzly-async", address -> GRIZZLY.openChannel(address));

  /**
   * This library's four direct clients (the sync transport and the pipelined channel, on Netty and
   * on Grizzly) opened with {@code options}, named {@code netty-sync-<suffix>} and so on.
   */
  public static List<ClientKind> directClients(String suffix, ClientOptions options) {
    return List.of(
        ClientKinds.syncTransport(
            "netty-sync-" + suffix, address -> NETTY.openTransport(address, options)),
        ClientKinds.channel(
            "netty-async-" + suffix, address -> NETTY.openChannel(address, options)),
        ClientKinds.syncTransport(
            "grizzly-sync-" + suffix, address -> GRIZZLY.openTransport(address, options)),
        ClientKinds.channel(
            "grizzly-async-" + suffix, address -> GRIZZLY.openChannel(address, options)));
  }

  /** The sync pool's per-call proxy over stock framed sockets. */
  public static final ClientKind POOLED_SYNC =
      ClientKinds.iface(
          "pooled-sync",
          (address, protocol) -> {
            ThriftClientPool<BenchService.Client> pool =
                ThriftClientPool.builder(BenchService.Client::new)
                    .protocol(protocol)
                    .options(
                        ClientOptions.builder()
                            .connectTimeout(Duration.ofSeconds(10))
                            .callTimeout(Duration.ofSeconds(60))
                            .build())
                    .endpoints(address)
                    .build();
            return new ClientKinds.Opened<>(pool.iface(BenchService.Iface.class), pool);
          });

  /** The async pool of generated {@code AsyncClient}s, through its {@code AsyncIface} proxy. */
  public static final ClientKind POOLED_ASYNC =
      ClientKinds.asyncIface(
          "pooled-async",
          (address, protocol) -> {
            ThriftAsyncClientPool<BenchService.AsyncClient> pool =
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .protocol(protocol)
                    .endpoints(address)
                    .options(ClientOptions.builder().callTimeout(Duration.ofSeconds(60)).build())
                    .build();
            return new ClientKinds.Opened<>(pool.asyncIface(BenchService.AsyncIface.class), pool);
          });

  /** The sync pool over this library's Netty sync transport. */
  public static final ClientKind POOLED_NETTY_SYNC =
      pooledSync("pooled-netty-sync", address -> NETTY.openTransport(address));

  /** The sync pool over this library's Grizzly sync transport. */
  public static final ClientKind POOLED_GRIZZLY_SYNC =
      pooledSync("pooled-grizzly-sync", address -> GRIZZLY.openTransport(address));

  /** The channel pool over Netty channels, many calls in flight per connection. */
  public static final ClientKind POOLED_NETTY_CHANNEL =
      pooledChannel("pooled-netty-channel", NETTY);

  /** The channel pool over Grizzly channels. */
  public static final ClientKind POOLED_GRIZZLY_CHANNEL =
      pooledChannel("pooled-grizzly-channel", GRIZZLY);

  private static ClientKind pooledSync(String name, ClientTransportFactory transports) {
    return ClientKinds.iface(
        name,
        (address, protocol) -> {
          ThriftClientPool<BenchService.Client> pool =
              ThriftClientPool.builder(BenchService.Client::new)
                  .protocol(protocol)
                  .transportFactory(transports)
                  .endpoints(address)
                  .build();
          return new ClientKinds.Opened<>(pool.iface(BenchService.Iface.class), pool);
        });
  }

  private static ClientKind pooledChannel(String name, ClientIo io) {
    return ClientKinds.asyncIface(
        name,
        (address, protocol) -> {
          ThriftChannelPool<BenchService.Client> pool =
              ThriftChannelPool.builder(BenchService.Client::new)
                  .io(io)
                  .protocol(protocol)
                  .endpoints(address)
                  .build();
          return new ClientKinds.Opened<>(pool.asyncIface(BenchService.AsyncIface.class), pool);
        });
  }
}
