package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.pool.PoolMetrics;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of the {@code slowcall} scenario (issue 23): two servers of one row in this JVM, one
 * {@link ThriftChannelPool} of Netty channels over both ({@code ClientOptions.callTimeout}, every
 * other setting the default), {@code callers} threads calling {@code echo(300 B)} in a loop, and
 * one more caller making {@code slowCalls} calls to {@code sleep(slowMillis)}, past the request
 * timeout, one a second from 1 s into the measurement. A warm-up comes first, so that the
 * connections the echo load needs are open before the measurement and the first slow call.
 */
final class SlowCallScenario {

  /** The echo payload, as in the issue: 300 bytes. */
  static final int ECHO_SIZE = Payloads.SMALL;

  /** The slow calls' spacing, as in the issue: one a second. */
  static final Duration SLOW_CALL_SPACING = Duration.ofSeconds(1);

  /** How often the pool's ejection count is read, to tell when each ejection happened. */
  static final Duration EJECTION_POLL = Duration.ofMillis(10);

  /**
   * A connection the pool opened.
   *
   * @param at seconds from the measurement's start (negative: in the warm-up)
   * @param server 1 or 2, the server it goes to
   */
  record Opened(double at, int server) {}

  /** What {@code slowcall} runs for one number of callers. */
  record Settings(
      String row,
      int callers,
      Duration warmup,
      Duration duration,
      Duration callTimeout,
      int slowMillis,
      int slowCalls,
      Integer workers,
      Integer ioThreads,
      int clientIoThreads) {}

  /**
   * What one run measured.
   *
   * @param warmup the echo calls of the warm-up, not in the table
   * @param echoes the echo calls that started in the measurement
   * @param slow the slow calls
   * @param stats the pool's stats at the end
   * @param createdAfterWarmup connections the pool opened after the warm-up
   * @param opened every connection the pool opened, warm-up included
   * @param ejectedAt when each ejection was seen (polled every 10 ms), in seconds from the
   *     measurement's start; negative in the warm-up
   * @param ownTimeoutsAt when each echo call timed out on its own, likewise
   * @param slowAt when each slow call started, in seconds from the measurement's start
   * @param seconds how long the measurement ran
   * @param otherCpus CPUs kept busy by other processes during the measurement, on average
   * @param ownCpus CPUs this process kept busy during the measurement, on average
   * @param cpus CPUs this process may run on
   * @param loadAverage the 1-minute load average at the end
   */
  record Result(
      Settings settings,
      SlowCallOutcomes warmup,
      SlowCallOutcomes echoes,
      SlowCallOutcomes slow,
      PoolStats stats,
      long createdAfterWarmup,
      List<Opened> opened,
      List<Double> ejectedAt,
      List<Double> ownTimeoutsAt,
      List<Double> slowAt,
      double seconds,
      double otherCpus,
      double ownCpus,
      int cpus,
      String loadAverage) {

    /** Ejections after the warm-up, in the measurement. */
    long ejectedAfterWarmup() {
      return ejectedAt.stream().filter(t -> t >= 0).count();
    }

    /** The connections opened after the warm-up. */
    List<Opened> openedAfterWarmup() {
      return opened.stream().filter(o -> o.at() >= 0).toList();
    }

    /**
     * The slow call (1, 2, ...) that had started and whose late reply was not yet due at {@code
     * seconds}, or 0 if none.
     */
    int slowCallOwingAt(double seconds) {
      for (int i = 0; i < slowAt.size(); i++) {
        double from = slowAt.get(i);
        if (seconds >= from && seconds <= from + settings.slowMillis() / 1000.0) {
          return i + 1;
        }
      }
      return 0;
    }

    double echoCallsPerSecond() {
      return echoes.ok() / Math.max(seconds, 1e-9);
    }

    /** Slow calls that timed out, by their own timer or behind another timed-out call. */
    long slowTimedOut() {
      return slow.timedOut() + slow.timedOutBehind();
    }

    /** What contradicts the claims; empty when the run shows them. */
    List<String> findings() {
      List<String> f = new ArrayList<>();
      if (echoes.failed() > 0) {
        f.add(
            echoes.failed()
                + " echo calls failed because of another call: "
                + echoes.failedByKind());
      }
      if (ejectedAfterWarmup() > 0) {
        f.add(ejectedAfterWarmup() + " endpoints ejected after the warm-up");
      }
      if (createdAfterWarmup > 0) {
        f.add(createdAfterWarmup + " connections opened after the warm-up");
      }
      if (slowTimedOut() < settings.slowCalls()) {
        f.add(
            slowTimedOut()
                + " of "
                + settings.slowCalls()
                + " slow calls timed out (ok "
                + slow.ok()
                + ", failed otherwise "
                + slow.failedByKind()
                + ")");
      }
      return f;
    }
  }

  private final ServerRow row;
  private final Settings settings;
  // When each connection opened, and to which server (1 or 2).
  private final ConcurrentLinkedQueue<long[]> opened = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> ejected = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> ownTimeouts = new ConcurrentLinkedQueue<>();
  private final SlowCallOutcomes warmup = new SlowCallOutcomes();
  private final SlowCallOutcomes echoes = new SlowCallOutcomes();
  private final SlowCallOutcomes slow = new SlowCallOutcomes();
  private volatile SlowCallOutcomes current = warmup; // where calls starting now count
  private volatile boolean stop;

  private SlowCallScenario(ServerRow row, Settings settings) {
    this.row = row;
    this.settings = settings;
  }

  /** Runs the scenario once with {@code settings} against two servers of {@code row}. */
  static Result run(ServerRow row, Settings settings) throws Exception {
    return new SlowCallScenario(row, settings).run();
  }

  private Result run() throws Exception {
    List<RunningServer> servers = new ArrayList<>();
    ServerSpec spec =
        new ServerSpec(
            MatrixRunner.LOOPBACK,
            0,
            "binary",
            settings.workers(),
            settings.ioThreads(),
            false,
            settings.callers() + 64);
    try (NettyClientIo resources = NettyClientIo.create(settings.clientIoThreads())) {
      for (int i = 0; i < 2; i++) {
        servers.add(row.start(spec));
      }
      ClientOptions options = ClientOptions.builder().callTimeout(settings.callTimeout()).build();
      try (ThriftChannelPool<BenchService.Client> pool =
          ThriftChannelPool.builder(BenchService.Client::new)
              .io(resources)
              .options(options)
              .endpoints(servers.get(0).address(), servers.get(1).address())
              .metrics(
                  new PoolMetrics() {
                    @Override
                    public void created(InetSocketAddress endpoint) {
                      int server = endpoint.equals(servers.get(0).address()) ? 1 : 2;
                      opened.add(new long[] {System.nanoTime(), server});
                    }
                  })
              .build()) {
        return measure(pool);
      }
    } finally {
      for (RunningServer s : servers) {
        s.close();
      }
    }
  }

  private Result measure(ThriftChannelPool<BenchService.Client> pool) throws Exception {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < settings.callers(); i++) {
      int seed = i;
      threads.add(daemon(() -> echoLoop(pool, seed), "slowcall-echo-" + i));
    }
    // PoolStats counts ejections and PoolMetrics has no event for them: poll, to tell when.
    Thread watcher = daemon(() -> watchEjections(pool), "slowcall-ejections");
    watcher.start();
    long createdBefore;
    MachineLoad loadBefore;
    long start;
    long end;
    List<Long> slowStarts = new ArrayList<>();
    Thread slowCaller;
    try {
      threads.forEach(Thread::start);
      parkUntil(System.nanoTime() + settings.warmup().toNanos());

      createdBefore = pool.stats().created();
      loadBefore = MachineLoad.now();
      start = System.nanoTime();
      current = echoes;
      long slowFrom = start;
      slowCaller = daemon(() -> slowCalls(pool, slowFrom, slowStarts), "slowcall-slow");
      slowCaller.start();
      end = start + settings.duration().toNanos();
      parkUntil(end);
    } finally {
      stop = true; // the callers finish the call they are in, however this ends
    }
    MachineLoad loadAfter = MachineLoad.now();
    long joinMillis = waitMillis() + 5_000;
    slowCaller.join(joinMillis);
    for (Thread t : threads) {
      t.join(joinMillis);
    }
    watcher.interrupt();
    watcher.join(joinMillis);
    PoolStats stats = pool.stats();
    List<Opened> openedAt = new ArrayList<>();
    for (long[] o : opened) {
      openedAt.add(new Opened((o[0] - start) / 1e9, (int) o[1]));
    }
    List<Double> ejectedAt = ejected.stream().map(t -> (t - start) / 1e9).toList();
    List<Double> ownTimeoutsAt = ownTimeouts.stream().map(t -> (t - start) / 1e9).toList();
    List<Double> slowAt;
    synchronized (slowStarts) {
      slowAt = slowStarts.stream().map(t -> (t - start) / 1e9).toList();
    }
    return new Result(
        settings,
        warmup,
        echoes,
        slow,
        stats,
        stats.created() - createdBefore,
        openedAt,
        ejectedAt,
        ownTimeoutsAt,
        slowAt,
        (end - start) / 1e9,
        loadAfter.otherCpusSince(loadBefore),
        loadAfter.ownCpusSince(loadBefore),
        loadAfter.cpus().size(),
        MachineLoad.loadAverage());
  }

  private void echoLoop(ThriftChannelPool<BenchService.Client> pool, int seed) {
    ByteBuffer payload = Payloads.of(ECHO_SIZE, seed);
    while (!stop) {
      SlowCallOutcomes into = current;
      CompletableFuture<ByteBuffer> reply;
      try {
        reply = pool.call(c -> c.send_echo(payload.duplicate()), BenchService.Client::recv_echo);
      } catch (RuntimeException e) {
        into.record(e);
        continue;
      }
      ByteBuffer r;
      try {
        r = await(reply);
      } catch (InterruptedException e) {
        return; // only the JVM's end interrupts these threads
      } catch (Exception e) {
        if (into.record(e) == SlowCallOutcomes.Outcome.TIMED_OUT) {
          ownTimeouts.add(System.nanoTime());
        }
        continue;
      }
      if (Payloads.check(r, ECHO_SIZE, seed)) {
        into.record(null);
      } else {
        into.wrongReply("echo(" + ECHO_SIZE + " B)");
      }
    }
  }

  /** Notes the moment of each new ejection until interrupted, then once more. */
  private void watchEjections(ThriftChannelPool<BenchService.Client> pool) {
    long seen = 0;
    while (true) {
      long now = pool.stats().ejections();
      for (; seen < now; seen++) {
        ejected.add(System.nanoTime());
      }
      if (Thread.interrupted()) {
        return; // the run is over, and this last look counted what it had left
      }
      LockSupport.parkNanos(EJECTION_POLL.toNanos());
    }
  }

  private void slowCalls(
      ThriftChannelPool<BenchService.Client> pool, long start, List<Long> starts) {
    for (int i = 1; i <= settings.slowCalls(); i++) {
      parkUntil(start + i * SLOW_CALL_SPACING.toNanos());
      synchronized (starts) {
        starts.add(System.nanoTime());
      }
      try {
        await(
            pool.call(
                c -> c.send_sleep(settings.slowMillis()),
                c -> {
                  c.recv_sleep();
                  return null;
                }));
        slow.record(null);
      } catch (InterruptedException e) {
        return; // only the JVM's end interrupts this thread
      } catch (Exception e) {
        slow.record(e);
      }
    }
  }

  /**
   * The call's result. A call the pool neither answers nor fails within the borrow timeout plus the
   * request timeout plus 10 s hangs: it fails with a {@link TimeoutException} that says so.
   */
  private <T> T await(CompletableFuture<T> reply)
      throws InterruptedException, ExecutionException, TimeoutException {
    try {
      return reply.get(waitMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new TimeoutException(
          "the pool neither answered nor failed the call within " + waitMillis() + " ms");
    }
  }

  private long waitMillis() {
    return Duration.ofSeconds(5) // the pools' default borrowTimeout
        .plus(settings.callTimeout())
        .plusSeconds(10)
        .toMillis();
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private static void parkUntil(long deadline) {
    for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  static String times(List<Double> times) {
    return times.stream().map(t -> String.format(Locale.ROOT, "%.2f s", t)).toList().toString();
  }
}
