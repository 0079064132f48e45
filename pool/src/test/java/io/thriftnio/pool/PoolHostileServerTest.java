package io.thriftnio.pool;

import io.thriftnio.core.ClientIo;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.HostileServer.Misbehaviour;
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
                  ThriftChannelPool.builder(BenchService.Client::new, netty)
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
                  ThriftAsyncClientPool.builder(BenchService.AsyncClient::new)
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

  @Override
  protected String knownOpen(String kind, Wire wire, Misbehaviour misbehaviour) {
    if (kind.equals("async-pool") && misbehaviour == Misbehaviour.TWICE) {
      return "the stock async client writes seqid 0 on every call, so a duplicate reply still"
          + " unread when the connection is next borrowed answers the next call (seen: the"
          + " second call returned the first call's reply); needs a per-connection sequence"
          + " id on the async pool's sockets, as the channels have";
    }
    if (!kind.startsWith("sync-pool/")) {
      return null;
    }
    if (misbehaviour == Misbehaviour.TRICKLE) {
      return "a sync call's read timeout restarts with every byte (issue 39, item 4)";
    }
    boolean libthriftSocket = kind.equals("sync-pool/stock") || wire == Wire.SASL;
    if (libthriftSocket
        && (misbehaviour == Misbehaviour.TRUNCATED_FIN || misbehaviour == Misbehaviour.RESET)) {
      return "a closed or reset connection in libthrift's TSocket words, no endpoint (issue 39,"
          + " item 3: one form for a refused or reset connection)";
    }
    if (wire == Wire.SASL && misbehaviour == Misbehaviour.SILENT) {
      return "the SASL sync transport reports libthrift's 'Read timed out', not a"
          + " CallTimeoutException naming the method and callTimeout";
    }
    if (wire == Wire.SASL_INT && misbehaviour == Misbehaviour.SASL_BAD_WRAP) {
      return "the SASL sync transport (libthrift's TSaslClientTransport) reports a frame that"
          + " does not unwrap as 'Cannot read. Remote side has closed', no endpoint";
    }
    return null;
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
