package io.thriftnio.it.bench;

import io.thriftnio.pool.PoolTimeoutException;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code contention}: a pool path that every waiting call crosses, under many callers.
 *
 * <ul>
 *   <li>{@code waiters}: a {@link ThriftChannelPool} whose one connection is held by a call that is
 *       never answered, and {@code N} calls waiting behind it with a {@code --borrow-timeout}; all
 *       expire together. Reported: the time to queue them, the time from the first expiry to the
 *       last, how late the last was, and the CPU the process and the pool's timer thread spent
 *       while they expired.
 * </ul>
 */
@Command(
    name = "contention",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
      "Measures the expiry of N calls waiting on a pool whose one connection is held (waiters).",
      "Prints one Markdown table per scenario."
    })
final class ContentionCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--scenarios",
      split = ",",
      paramLabel = "S,S",
      defaultValue = "waiters",
      description = "waiters (default: ${DEFAULT-VALUE})")
  List<String> scenarios;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "rounds of each measurement; the median is reported (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(
      names = "--waiters",
      split = ",",
      paramLabel = "N,N",
      defaultValue = "1000,10000",
      description = "waiters: calls waiting at once (default: ${DEFAULT-VALUE})")
  List<Integer> waiters;

  @Option(
      names = "--borrow-timeout",
      paramLabel = "D",
      defaultValue = "2s",
      converter = Cli.DurationConverter.class,
      description = "waiters: the pool's borrow timeout (default: ${DEFAULT-VALUE})")
  Duration borrowTimeout;

  private static final InetSocketAddress NOWHERE = new InetSocketAddress("127.0.0.1", 9);

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (rounds < 1 || borrowTimeout.isZero()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          String.format(
              Locale.ROOT,
              "rounds: %d, borrow-timeout: %s (expected: both > 0)",
              rounds,
              borrowTimeout));
    }
    for (String s : scenarios) {
      switch (s) {
        case "waiters" -> out.print(waiters(err));
        default ->
            throw new CommandLine.ParameterException(
                spec.commandLine(), "scenario: " + s + " (expected: waiters)");
      }
      out.flush();
    }
    return 0;
  }

  private String waiters(PrintWriter err) throws Exception {
    StringBuilder sb = new StringBuilder();
    sb.append(
            "| scenario | waiters | queue them (ms) | first to last expiry (ms) "
                + "| last expiry late by (ms) | process CPU while expiring (ms) "
                + "| timer thread CPU (ms) | timed out |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int n : waiters) {
      List<long[]> results = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        long[] one = waitersRound(n);
        results.add(one);
        err.printf(
            Locale.ROOT,
            "contention: %d waiters round %d: queued in %.1f ms, expired over %.1f ms, last %.1f ms"
                + " late, process CPU %.1f ms, timer CPU %.1f ms, %d timed out%n",
            n,
            r + 1,
            one[0] / 1e6,
            one[1] / 1e6,
            one[2] / 1e6,
            one[3] / 1e6,
            one[4] / 1e6,
            one[5]);
      }
      sb.append(String.format(Locale.ROOT, "| waiters | %d", n));
      for (int k = 0; k < 5; k++) {
        int col = k;
        sb.append(
            String.format(
                Locale.ROOT,
                " | %.1f",
                median(results.stream().mapToDouble(a -> a[col] / 1e6).toArray())));
      }
      sb.append(
          String.format(
              Locale.ROOT,
              " | %d |%n",
              Math.round(median(results.stream().mapToDouble(a -> a[5]).toArray()))));
    }
    return sb.append('\n').toString();
  }

  /**
   * One round: nanoseconds to queue, first to last expiry, lateness of the last, process CPU and
   * timer thread CPU while expiring; then the count of waiters that timed out.
   */
  private long[] waitersRound(int n) throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(ChannelIo.of(SilentChannel::new))
            .endpoints(NOWHERE)
            .maxTotal(1)
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowQueueCapacity(n)
            .borrowTimeout(borrowTimeout)
            .maxCallsInFlightPerConnection(1)
            .build()) {
      CompletableFuture<Long> held =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (pool.stats().active() == 0 && System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }
      long[] done = new long[n];
      List<CompletableFuture<Long>> calls = new ArrayList<>(n);
      long q0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        int k = i;
        CompletableFuture<Long> f = pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
        // The stage after the callback: once it completes, done[k] is written and visible.
        calls.add(f.whenComplete((v, e) -> done[k] = System.nanoTime()));
      }
      long q1 = System.nanoTime();
      // Just before the first waiter is due: the CPU counted from here is the expiry's.
      LockSupport.parkNanos(q0 + borrowTimeout.toNanos() - 50_000_000L - System.nanoTime());
      long cpu0 = processCpuNanos();
      long timer0 = timerCpuNanos();
      long timedOut = 0;
      for (CompletableFuture<Long> f : calls) {
        try {
          f.get(borrowTimeout.toSeconds() + 60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof PoolTimeoutException) {
            timedOut++;
          }
        }
      }
      long cpu1 = processCpuNanos();
      long timer1 = timerCpuNanos();
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (long t : done) {
        first = Math.min(first, t);
        last = Math.max(last, t);
      }
      held.cancel(false);
      return new long[] {
        q1 - q0,
        last - first,
        Math.max(0, last - (q1 + borrowTimeout.toNanos())),
        cpu1 - cpu0,
        timer1 - timer0,
        timedOut
      };
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** CPU of the pools' timer threads, which expire waiters. */
  private static long timerCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long n = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("thrift-nio-pool-timer")) {
        n += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return n;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
