package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.PoolBuilder;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.thrift.transport.TTransport;

/**
 * The pooled client kinds. In their cells {@code connections} is the number of concurrent callers
 * (the parallelism), each with one call at a time; the pool decides how many connections carry
 * them, and {@link ClientLoad#connectionsOpened()} reports how many it opened.
 *
 * <ul>
 *   <li>{@code pooled-sync}: {@link ThriftClientPool} over stock framed sockets; a call holds a
 *       connection for its whole length, so the pool has one connection per caller unless {@code
 *       --pool-size} says otherwise.
 *   <li>{@code pooled-async}: {@link ThriftChannelPool} over Netty channels, {@value
 *       #IN_FLIGHT_PER_CONNECTION} calls in flight per connection (more if {@code --pool-size}
 *       needs it to seat every caller), so the pool needs callers / {@value
 *       #IN_FLIGHT_PER_CONNECTION} connections.
 * </ul>
 */
final class PoolRows implements RowProvider {

  /** Calls one pooled async connection carries at once: {@code ThriftChannelPool}'s default. */
  static final int IN_FLIGHT_PER_CONNECTION = 32;

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  @Override
  public void register(Rows rows) {
    rows.client(new PooledSync());
    rows.client(new PooledAsync());
  }

  static <B extends PoolBuilder<?, B>> B config(B builder, int size, Duration borrowTimeout) {
    return builder
        .maxTotal(size)
        .maxPerEndpoint(size)
        .maxIdlePerEndpoint(size)
        .borrowTimeout(borrowTimeout);
  }

  private static final class PooledSync implements ClientKindRow {
    @Override
    public String name() {
      return "pooled-sync";
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) {
      int callers = cell.connections();
      int size = cell.poolSize() > 0 ? cell.poolSize() : callers;
      ThriftClientPool<BenchService.Client> pool =
          config(
                  ThriftClientPool.builder(BenchService.Client::new)
                      .protocol(cell.protocolFactory())
                      .transportFactory(
                          cell.tls() == null
                              ? ClientTransportFactory.stock(
                                  ClientOptions.builder()
                                      .connectTimeout(CONNECT_TIMEOUT)
                                      .callTimeout(cell.callTimeout())
                                      .build())
                              : ClientTransportFactory.stock(
                                  ClientOptions.builder()
                                      .connectTimeout(CONNECT_TIMEOUT)
                                      .callTimeout(cell.callTimeout())
                                      .tls(cell.tls())
                                      .build()))
                      .endpoints(address),
                  size,
                  cell.callTimeout())
              .build();
      Workload workload = cell.workload();
      byte[] frame = cell.raw() ? workload.requestFrame(cell.protocolFactory()) : null;
      List<ClientLoad.Lane> lanes = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        if (frame != null) {
          byte[] echo = new byte[frame.length];
          lanes.add(
              pooledLane(
                  () ->
                      pool.call(
                          c -> {
                            TTransport t = c.getOutputProtocol().getTransport();
                            t.write(frame);
                            t.flush();
                            c.getInputProtocol().getTransport().readAll(echo, 0, echo.length);
                            return Arrays.equals(frame, echo);
                          })));
        } else {
          lanes.add(pooledLane(() -> pool.call(workload::call)));
        }
      }
      return new PoolLoad(lanes, () -> pool.stats().created(), pool, null, null);
    }

    private static ClientLoad.SyncLane pooledLane(ClientLoad.SyncLane call) {
      return new ClientLoad.SyncLane() {
        @Override
        public boolean call() throws Exception {
          return call.call();
        }

        @Override
        public boolean continuesAfterError() {
          return true; // the pool destroys a broken connection and opens another
        }
      };
    }
  }

  private static final class PooledAsync implements ClientKindRow {
    @Override
    public String name() {
      return "pooled-async";
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) {
      int callers = cell.connections();
      int inFlight = IN_FLIGHT_PER_CONNECTION;
      int size = (callers + inFlight - 1) / inFlight;
      if (cell.poolSize() > 0) {
        size = cell.poolSize();
        inFlight = Math.max(inFlight, (callers + size - 1) / size);
      }
      NettyClientIo resources = NettyClientIo.create(NettyRows.clientIoThreads());
      // The pool may open a connection, or wait for a seat, on the thread that starts a call, so
      // replies complete on a small pool of our own threads, never on an event loop.
      ExecutorService callbacks =
          Executors.newFixedThreadPool(
              Math.max(2, Runtime.getRuntime().availableProcessors()),
              r -> {
                Thread t = new Thread(r, "bench-pool-callback");
                t.setDaemon(true);
                return t;
              });
      ThriftChannelPool<BenchService.Client> pool =
          config(
                  ThriftChannelPool.builder(BenchService.Client::new)
                      .io(
                          ChannelIo.of(
                              a ->
                                  resources.openChannel(
                                      a,
                                      ClientOptions.builder()
                                          .callTimeout(cell.callTimeout())
                                          .callbackExecutor(Runnable::run)
                                          .tls(cell.tls())
                                          .build())))
                      .protocol(cell.protocolFactory())
                      .endpoints(address),
                  size,
                  cell.callTimeout())
              .maxCallsInFlightPerConnection(inFlight)
              .options(ClientOptions.builder().callbackExecutor(callbacks).build())
              .build();
      Workload workload = cell.workload();
      byte[] frame = cell.raw() ? workload.requestFrame(cell.protocolFactory()) : null;
      List<ClientLoad.Lane> lanes = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        lanes.add(
            new ClientLoad.AsyncLane() {
              @Override
              public int depth() {
                return 1;
              }

              @Override
              public CompletableFuture<Boolean> call() {
                if (frame == null) {
                  return pool.call(workload::send, workload::receive).thenApply(workload::check);
                }
                return pool.call(
                    c -> c.getOutputProtocol().getTransport().write(frame),
                    c -> {
                      byte[] echo = new byte[frame.length];
                      c.getInputProtocol().getTransport().readAll(echo, 0, echo.length);
                      return ByteBuffer.wrap(echo).equals(ByteBuffer.wrap(frame));
                    });
              }

              @Override
              public boolean continuesAfterError() {
                return true; // the pool replaces a failed connection
              }
            });
      }
      return new PoolLoad(lanes, () -> pool.stats().created(), pool, resources, callbacks);
    }
  }

  /** A pool and what it runs on, closed in order: pool, event loops, callback threads. */
  private static final class PoolLoad implements ClientLoad {
    private final List<Lane> lanes;
    private final java.util.function.LongSupplier opened;
    private final AutoCloseable pool;
    private final AutoCloseable resources;
    private final ExecutorService callbacks;
    private boolean closed;

    PoolLoad(
        List<Lane> lanes,
        java.util.function.LongSupplier opened,
        AutoCloseable pool,
        AutoCloseable resources,
        ExecutorService callbacks) {
      this.lanes = List.copyOf(lanes);
      this.opened = opened;
      this.pool = pool;
      this.resources = resources;
      this.callbacks = callbacks;
    }

    @Override
    public List<Lane> lanes() {
      return lanes;
    }

    @Override
    public long connectionsOpened() {
      return opened.getAsLong();
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      Lanes.closeQuietly(pool);
      if (resources != null) {
        Lanes.closeQuietly(resources);
      }
      if (callbacks != null) {
        callbacks.shutdownNow();
      }
    }
  }
}
