package io.thriftnio.pool;

import io.thriftnio.core.ClientIo;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.HostileServer.Wire;
import io.thriftnio.testkit.conformance.HostileServerSuite;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/**
 * The hostile-server suite on the three pools: {@code ThriftClientPool} over stock sockets, Netty's
 * and Grizzly's sync transports, {@code ThriftChannelPool} over Netty channels, and {@code
 * ThriftAsyncClientPool}. Each case's pool starts on the hostile endpoint alone and is then moved
 * to the healthy one through its endpoint source.
 */
class PoolHostileServerTest extends HostileServerSuite {
  private final NettyClientIo netty = NettyClientIo.create(1);
  private final GrizzlyClientIo grizzly = GrizzlyClientIo.create();

  @Override
  protected List<Kind> kinds() {
    return List.of(
        kind(
            "sync-pool/stock",
            EnumSet.of(Wire.FRAMED, Wire.UNFRAMED, Wire.TLS),
            (options, hostile, healthy) -> syncPool(null, options, hostile, healthy)),
        kind(
            "sync-pool/netty",
            CHANNEL_WIRES,
            (options, hostile, healthy) -> syncPool(netty, options, hostile, healthy)),
        kind(
            "sync-pool/grizzly",
            CHANNEL_WIRES,
            (options, hostile, healthy) -> syncPool(grizzly, options, hostile, healthy)),
        kind(
            "channel-pool/netty",
            CHANNEL_WIRES,
            (options, hostile, healthy) -> {
              ManualEndpointSource source = new ManualEndpointSource(hostile);
              ThriftChannelPool<BenchService.Client> pool =
                  ThriftChannelPool.builder(BenchService.Client::new)
                      .io(netty)
                      .endpointSource(source)
                      .options(options)
                      .build();
              return session(
                  pool,
                  ClientKinds.blocking(pool.asyncIface(BenchService.AsyncIface.class)),
                  source,
                  healthy);
            }),
        kind(
            "async-pool",
            EnumSet.of(Wire.FRAMED, Wire.HEADER, Wire.SASL),
            (options, hostile, healthy) -> {
              ManualEndpointSource source = new ManualEndpointSource(hostile);
              ThriftAsyncClientPool<BenchService.AsyncClient> pool =
                  ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                      .endpointSource(source)
                      .options(options)
                      .build();
              return session(
                  pool,
                  ClientKinds.blocking(pool.asyncIface(BenchService.AsyncIface.class)),
                  source,
                  healthy);
            }));
  }

  private static Session syncPool(
      ClientIo io,
      io.thriftnio.core.ClientOptions options,
      InetSocketAddress hostile,
      InetSocketAddress healthy) {
    ManualEndpointSource source = new ManualEndpointSource(hostile);
    ThriftClientPool.Builder<BenchService.Client> builder =
        ThriftClientPool.builder(BenchService.Client::new).endpointSource(source).options(options);
    if (io != null) {
      builder.io(io);
    }
    ThriftClientPool<BenchService.Client> pool = builder.build();
    return session(pool, pool.iface(BenchService.Iface.class), source, healthy);
  }

  private static Session session(
      AutoCloseable pool,
      BenchService.Iface iface,
      ManualEndpointSource source,
      InetSocketAddress healthy) {
    return new Session() {
      @Override
      public BenchService.Iface iface() {
        return iface;
      }

      @Override
      public void toHealthy() {
        source.publish(healthy);
      }

      @Override
      public void close() throws Exception {
        pool.close();
      }
    };
  }

  @AfterAll
  void closeIo() {
    netty.close();
    grizzly.close();
  }
}
