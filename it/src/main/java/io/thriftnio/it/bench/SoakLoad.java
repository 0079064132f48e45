package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.EndpointSource;
import io.thriftnio.pool.PoolBuilder;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TLayeredTransport;

/**
 * The soak's clients: a {@link ThriftClientPool} of stock framed sockets with one blocking caller
 * thread per connection, and a {@link ThriftChannelPool} of Netty channels with {@value
 * #ASYNC_CALLERS_PER_CONNECTION} callers per connection, each call picked from {@link SoakMix}.
 * Sync callers pause {@code think} between calls; async callers start together every {@code think}.
 * Every connection either pool opens is remembered, so that {@link #kill(int, SplittableRandom)}
 * can abort some at random under the pools' feet.
 */
final class SoakLoad implements AutoCloseable {

  /** Async callers per pooled channel: the pool pipelines them on one connection. */
  static final int ASYNC_CALLERS_PER_CONNECTION = 2;

  /** A connection that can be aborted. */
  private interface Victim {
    boolean alive();

    void abort();
  }

  private final SoakRecorder recorder;
  private final Duration think;
  private final SoakMix.Inputs inputs;
  private final ThriftClientPool<BenchService.Client> syncPool;
  private final ThriftChannelPool<BenchService.Client> asyncPool;
  private final NettyClientIo resources;
  private final ScheduledThreadPoolExecutor asyncStarter;
  private final List<Thread> syncCallers = new ArrayList<>();
  private final int asyncCallers;
  private final Set<Victim> syncVictims = ConcurrentHashMap.newKeySet();
  private final Set<Victim> asyncVictims = ConcurrentHashMap.newKeySet();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean running = true;

  /**
   * The clients of one server at {@code address}, keeping every connection open (see {@link
   * #config}).
   */
  SoakLoad(
      InetSocketAddress address,
      TProtocolFactory protocol,
      int syncConnections,
      int asyncConnections,
      Duration callTimeout,
      Duration think,
      SoakMix.Inputs inputs,
      SoakRecorder recorder) {
    this(
        () -> EndpointSource.of(address),
        true,
        protocol,
        syncConnections,
        asyncConnections,
        callTimeout,
        think,
        inputs,
        recorder);
  }

  /**
   * The clients of the servers {@code endpoints} publishes; each pool gets a source of its own.
   *
   * @param keepOpen whether the sync pool keeps its size open through its evictor, which suits one
   *     fixed endpoint; with several that come and go, connections open on demand instead
   */
  SoakLoad(
      Supplier<EndpointSource> endpoints,
      boolean keepOpen,
      TProtocolFactory protocol,
      int syncConnections,
      int asyncConnections,
      Duration callTimeout,
      Duration think,
      SoakMix.Inputs inputs,
      SoakRecorder recorder) {
    this.recorder = recorder;
    this.think = think;
    this.inputs = inputs;
    ClientTransportFactory sockets =
        ClientTransportFactory.stock(
            ClientOptions.builder().connectTimeout(callTimeout).callTimeout(callTimeout).build());
    this.syncPool =
        config(
                ThriftClientPool.builder(BenchService.Client::new)
                    .protocol(protocol)
                    .transportFactory(
                        endpoint -> {
                          TTransport t = sockets.open(endpoint);
                          Socket s = socketOf(t);
                          if (s != null) {
                            syncVictims.add(
                                new Victim() {
                                  @Override
                                  public boolean alive() {
                                    return !s.isClosed();
                                  }

                                  @Override
                                  public void abort() {
                                    abortSocket(s);
                                  }
                                });
                          }
                          return t;
                        })
                    .endpointSource(endpoints.get()),
                syncConnections,
                callTimeout,
                keepOpen)
            .build();
    this.resources = NettyClientIo.create(NettyRows.clientIoThreads());
    this.asyncCallers = asyncConnections * ASYNC_CALLERS_PER_CONNECTION;
    // Borrowing may block (a connect, a wait for a seat), so calls start on these threads, never
    // on an event loop; replies complete here too.
    this.asyncStarter = new ScheduledThreadPoolExecutor(4, named("soak-async-caller"));
    this.asyncPool =
        config(
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(
                        ChannelIo.of(
                            a -> {
                              ThriftChannel ch =
                                  resources.openChannel(
                                      a,
                                      ClientOptions.builder()
                                          .callTimeout(callTimeout)
                                          .callbackExecutor(Runnable::run)
                                          .build());
                              asyncVictims.add(
                                  new Victim() {
                                    @Override
                                    public boolean alive() {
                                      return ch.isOpen();
                                    }

                                    @Override
                                    public void abort() {
                                      ch.close();
                                    }
                                  });
                              return ch;
                            }))
                    .protocol(protocol)
                    .endpointSource(endpoints.get()),
                asyncConnections,
                callTimeout,
                false)
            .maxCallsInFlightPerConnection(ASYNC_CALLERS_PER_CONNECTION)
            .options(ClientOptions.builder().callbackExecutor(asyncStarter).build())
            .build();
    for (int i = 0; i < syncConnections; i++) {
      SplittableRandom random = new SplittableRandom(i);
      Thread t = new Thread(() -> syncLoop(random), "soak-sync-caller-" + i);
      t.setDaemon(true);
      syncCallers.add(t);
    }
  }

  void start() {
    syncCallers.forEach(Thread::start);
    List<AsyncCaller> callers = new ArrayList<>();
    for (int i = 0; i < asyncCallers; i++) {
      callers.add(new AsyncCaller(new SplittableRandom(1_000_000L + i)));
    }
    // In waves: every think period each idle caller starts a call, all at once, so that the
    // burst needs every connection of the async pool (which opens them on demand only).
    long period = Math.max(think.toNanos(), TimeUnit.MILLISECONDS.toNanos(1));
    asyncStarter.scheduleAtFixedRate(
        () -> callers.forEach(AsyncCaller::startIfIdle), 0, period, TimeUnit.NANOSECONDS);
  }

  private void syncLoop(SplittableRandom random) {
    while (running) {
      SoakMix call = SoakMix.pick(random, inputs.slowPercent());
      inFlight.incrementAndGet();
      long t0 = System.nanoTime();
      try {
        ended(call, call.call(syncPool, inputs), null, t0, "sync");
      } catch (Exception e) {
        if (running) {
          ended(call, false, e, t0, "sync");
        }
      } finally {
        inFlight.decrementAndGet();
      }
      if (!think.isZero()) {
        try {
          Thread.sleep(think.toMillis(), think.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
          return; // close() interrupts the callers: stop
        }
      }
    }
  }

  /**
   * Records how {@code call} of {@code pool} ended: with {@code failure}, or with a reply that
   * checked out ({@code good}) or not. Slow calls are the recorder's to sort.
   */
  private void ended(SoakMix call, boolean good, Throwable failure, long t0, String pool) {
    if (call == SoakMix.SLOW) {
      recorder.slowCallEnded(failure, pool, System.nanoTime() - t0);
    } else if (failure != null) {
      recorder.poolError(failure, pool);
    } else if (good) {
      recorder.ok(System.nanoTime() - t0);
    } else {
      recorder.badReply(call + " (" + pool + ")");
    }
  }

  /** One async caller: at most one call of its own in flight. */
  private final class AsyncCaller {
    private final SplittableRandom random;
    private final AtomicBoolean busy = new AtomicBoolean();

    AsyncCaller(SplittableRandom random) {
      this.random = random;
    }

    void startIfIdle() {
      if (!running || !busy.compareAndSet(false, true)) {
        return;
      }
      SoakMix call = SoakMix.pick(random, inputs.slowPercent());
      inFlight.incrementAndGet();
      long t0 = System.nanoTime();
      try {
        call.call(asyncPool, inputs)
            .whenComplete(
                (good, e) -> {
                  if (running) {
                    ended(call, e == null && good, e, t0, "async");
                  }
                  inFlight.decrementAndGet();
                  busy.set(false);
                });
      } catch (RuntimeException e) {
        if (running) {
          ended(call, false, e, t0, "async");
        }
        inFlight.decrementAndGet();
        busy.set(false);
      }
    }
  }

  /**
   * Aborts up to {@code count} live connections of either pool, picked at random; sockets get a
   * reset (SO_LINGER 0), channels are closed with their calls in flight.
   *
   * @return how many were aborted
   */
  int kill(int count, SplittableRandom random) {
    syncVictims.removeIf(v -> !v.alive());
    asyncVictims.removeIf(v -> !v.alive());
    List<Victim> live = new ArrayList<>(syncVictims);
    live.addAll(asyncVictims);
    Collections.shuffle(live, new Random(random.nextLong()));
    int n = Math.min(count, live.size());
    for (int i = 0; i < n; i++) {
      live.get(i).abort();
    }
    return n;
  }

  /**
   * Sync connections open now, counted from the sockets the pool opened rather than from its stats:
   * under load {@code PoolStats.total()} (active and idle read at two moments) can exceed the
   * pool's own maximum.
   */
  int syncOpen() {
    return (int) syncVictims.stream().filter(Victim::alive).count();
  }

  /** Async connections open now, counted from the channels the pool opened. */
  int asyncOpen() {
    return (int) asyncVictims.stream().filter(Victim::alive).count();
  }

  /** Endpoints both pools ejected so far ({@code PoolStats.ejections()}). */
  long ejections() {
    return syncPool.stats().ejections() + asyncPool.stats().ejections();
  }

  String poolStats() {
    return "sync " + syncPool.stats() + "; async " + asyncPool.stats();
  }

  int callers() {
    return syncCallers.size() + asyncCallers;
  }

  /** Stops the callers, waits up to 15 s for calls in flight, closes the pools. */
  @Override
  public void close() {
    running = false;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (inFlight.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    syncCallers.forEach(Thread::interrupt);
    for (Thread t : syncCallers) {
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    Lanes.closeQuietly(syncPool);
    Lanes.closeQuietly(asyncPool);
    Lanes.closeQuietly(resources);
    asyncStarter.shutdownNow();
    syncVictims.clear();
    asyncVictims.clear();
  }

  /**
   * A pool of exactly {@code size} connections that keeps idle ones open forever. The sync pool
   * also keeps {@code size} open through its evictor ({@code minIdle}), so that after a restart it
   * reconnects in the background; the async pool has no such floor and reopens on demand.
   */
  private static <B extends PoolBuilder<?, B>> B config(
      B builder, int size, Duration borrowTimeout, boolean keepOpen) {
    int n = Math.max(1, size);
    builder.idleTimeout(Duration.ZERO);
    if (keepOpen) {
      builder.minIdlePerEndpoint(n).evictionInterval(Duration.ofSeconds(1));
    }
    return builder.maxTotal(n).maxPerEndpoint(n).maxIdlePerEndpoint(n).borrowTimeout(borrowTimeout);
  }

  private static Socket socketOf(TTransport t) {
    TTransport inner = t;
    while (inner instanceof TLayeredTransport layered) {
      inner = layered.getInnerTransport();
    }
    return inner instanceof TSocket socket ? socket.getSocket() : null;
  }

  private static void abortSocket(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // Already closed: close() below is then a no-op.
    }
    try {
      s.close();
    } catch (IOException e) {
      // The descriptor is released even when close reports an error.
    }
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
