package io.thriftnio.peer.drift;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import com.google.common.net.HostAndPort;
import io.airlift.drift.client.DriftClientFactory;
import io.airlift.drift.client.ExceptionClassifier;
import io.airlift.drift.client.address.SimpleAddressSelector;
import io.airlift.drift.client.stats.NullMethodInvocationStatsFactory;
import io.airlift.drift.codec.ThriftCodecManager;
import io.airlift.drift.server.DriftServer;
import io.airlift.drift.server.DriftService;
import io.airlift.drift.transport.netty.client.DriftNettyClientConfig;
import io.airlift.drift.transport.netty.client.DriftNettyConnectionFactoryConfig;
import io.airlift.drift.transport.netty.client.DriftNettyMethodInvokerFactory;
import io.airlift.drift.transport.netty.codec.Protocol;
import io.airlift.drift.transport.netty.codec.Transport;
import io.airlift.drift.transport.netty.server.DriftNettyServerConfig;
import io.airlift.drift.transport.netty.server.DriftNettyServerTransport;
import io.airlift.drift.transport.netty.server.DriftNettyServerTransportFactory;
import io.airlift.units.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * What the bench calls, through a class loader of its own and with JDK types only (it cannot see
 * Drift's): Drift's server with its Netty transport serving {@link DriftBench}, and Drift's client
 * calling it.
 */
public final class DriftPeer {

  private DriftPeer() {}

  /**
   * Starts Drift's server on every address at {@code port}, framed or unframed, binary or compact
   * (Drift tells them apart per connection), the handler running on the event loop that read the
   * call, as Drift runs every handler.
   *
   * @param port the port, 0 for a free one
   * @param eventLoops Drift's worker event loops, the threads that serve connections ({@code
   *     --io-threads}); one more thread accepts
   * @return the running server: an {@link IntSupplier} of the bound port, closed to stop it
   */
  public static AutoCloseable serve(int port, int eventLoops) {
    DriftNettyServerConfig config =
        new DriftNettyServerConfig()
            .setPort(port)
            .setIoThreadCount(1)
            .setWorkerThreadCount(eventLoops);
    DriftServer server =
        new DriftServer(
            new DriftNettyServerTransportFactory(config),
            new ThriftCodecManager(),
            new io.airlift.drift.server.stats.NullMethodInvocationStatsFactory(),
            Set.of(new DriftService(new DriftBenchHandler())),
            Set.of());
    server.start();
    int bound = ((DriftNettyServerTransport) server.getServerTransport()).getPort();
    return new Served(server, bound);
  }

  /**
   * Opens {@code connections} Drift clients of {@link DriftBench}, each on a connection of its own,
   * over one event loop; adds one blocking {@code echo} per client to {@code lanes}.
   *
   * @param host the server's address
   * @param port the server's port
   * @param protocol {@code binary} or {@code compact}, framed
   * @param connections how many clients, each with its own connection
   * @param timeoutMillis the limit of one call
   * @param lanes receives one echo function per client
   * @return closes every client and the event loop
   */
  public static AutoCloseable clients(
      String host,
      int port,
      String protocol,
      int connections,
      long timeoutMillis,
      List<Function<byte[], byte[]>> lanes) {
    Protocol wire = Protocol.valueOf(protocol.toUpperCase(Locale.ROOT));
    // Drift's pool keeps one connection per set of connection parameters and address, shared by
    // every client that has them: a connect timeout that differs by a millisecond per lane gives
    // each lane its own connection, as the stock clients of tsocket-40 have.
    DriftNettyMethodInvokerFactory<Integer> invokers =
        new DriftNettyMethodInvokerFactory<>(
            new DriftNettyConnectionFactoryConfig().setThreadCount(1),
            lane ->
                new DriftNettyClientConfig()
                    .setTransport(Transport.FRAMED)
                    .setProtocol(wire)
                    .setConnectTimeout(new Duration(10_000 + lane, MILLISECONDS))
                    .setRequestTimeout(new Duration(timeoutMillis, MILLISECONDS)));
    try {
      ThriftCodecManager codecs = new ThriftCodecManager();
      SimpleAddressSelector addresses =
          new SimpleAddressSelector(List.of(HostAndPort.fromParts(host, port)), false);
      for (int i = 0; i < connections; i++) {
        int lane = i;
        DriftBench client =
            new DriftClientFactory(
                    codecs,
                    () -> invokers.createMethodInvoker(lane),
                    addresses,
                    ExceptionClassifier.NORMAL_RESULT,
                    new NullMethodInvocationStatsFactory())
                .createDriftClient(DriftBench.class)
                .get();
        lanes.add(client::echo);
      }
    } catch (RuntimeException | Error e) {
      invokers.close();
      throw e;
    }
    // Drift's factory closes its pool and event loop once; a second close finds them closed.
    return invokers::close;
  }

  private record Served(DriftServer server, int port) implements AutoCloseable, IntSupplier {
    @Override
    public int getAsInt() {
      return port;
    }

    @Override
    public void close() {
      server.shutdown();
    }
  }
}
