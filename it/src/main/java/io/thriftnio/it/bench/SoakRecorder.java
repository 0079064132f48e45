package io.thriftnio.it.bench;

import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.pool.PoolTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;

/**
 * Counts the soak's calls, and sorts every error by kind and by whether it fell inside a fault
 * window: from the moment a fault starts (a kill, a server stop) until {@code grace} after it
 * ended. An error outside every window is a finding: nothing the soak did explains it.
 *
 * <p>Two kinds of failure are not errors, and are counted apart: a slow call ({@code --slow-share},
 * a {@code sleep} past the call timeout) that times out, which is what it is for; and a pipelined
 * call that timed out only behind another timed-out call on its connection ({@link
 * CallTimeoutException#behindTimedOutCall()}: replies come in request order), whose cause, the call
 * ahead of it, is counted for itself. Pool ejections are sorted into the windows like errors: one
 * outside every window is the ejection of a live server.
 */
final class SoakRecorder {

  /** Where an error fell. */
  enum Window {
    RESTART,
    KILL,
    /**
     * A graceful restart of one server of several (deregister, grace, drain): no call may fail in
     * it, so an error here is a finding like one outside every window.
     */
    GRACEFUL,
    NONE
  }

  /**
   * Where a successful call's latency is counted: before the first rolling round of graceful
   * restarts, inside a round, or after the first round and outside every round.
   */
  enum Phase {
    BEFORE,
    DURING,
    AFTER
  }

  /** One fault: a kill or a restart, from its start to its end plus the grace. */
  private static final class Fault {
    final Window kind;
    final long start;
    volatile long end = Long.MAX_VALUE; // until ended

    Fault(Window kind, long start) {
      this.kind = kind;
      this.start = start;
    }
  }

  private final long graceNanos;
  private final LongSupplier clock;
  // A few hundred at most (one per kill or restart), so a scan per error is cheap enough.
  private final List<Fault> faults = new ArrayList<>(); // guarded by this
  private final LongAdder ok = new LongAdder();
  private final LongAdder badReplies = new LongAdder();
  private final LongAdder slowTimedOut = new LongAdder();
  private final Map<String, LongAdder> slowAnswered = new ConcurrentHashMap<>(); // by pool
  private final AtomicLong slowAnsweredLongest = new AtomicLong();
  private final LongAdder timedOutBehind = new LongAdder();
  private long ejectionsSeen; // guarded by this
  private final Map<Window, Long> ejections = new EnumMap<>(Window.class); // guarded by this
  private final Map<Window, Map<String, LongAdder>> errors = new ConcurrentHashMap<>();
  private final Map<String, String> examples = new ConcurrentHashMap<>();
  private final AtomicLong restartedAt = new AtomicLong();
  private volatile long lastOk;
  private final List<Long> recoveries = new ArrayList<>(); // guarded by this
  private final Map<Phase, Histogram> latencies = new EnumMap<>(Phase.class);
  private final Recorder interval = new Recorder(3);
  private Histogram intervalScratch; // the sampler's only
  private volatile Phase phase = Phase.BEFORE;

  SoakRecorder(long graceNanos) {
    this(graceNanos, System::nanoTime);
  }

  /** With the clock the windows are measured on, so that a test can move time on. */
  SoakRecorder(long graceNanos, LongSupplier clock) {
    this.graceNanos = graceNanos;
    this.clock = clock;
    for (Window w : Window.values()) {
      errors.put(w, new ConcurrentHashMap<>());
    }
    for (Phase p : Phase.values()) {
      latencies.put(p, new ConcurrentHistogram(3));
    }
  }

  /** From now on, successful calls count in {@code p}. */
  void phase(Phase p) {
    phase = p;
  }

  /** A fault begins now; returns a handle to end it. */
  synchronized Object faultStarted(Window kind) {
    Fault f = new Fault(kind, clock.getAsLong());
    faults.add(f);
    return f;
  }

  /** The fault ended now; its window closes {@code grace} later. */
  void faultEnded(Object fault) {
    ((Fault) fault).end = clock.getAsLong() + graceNanos;
  }

  /** The server is back after a restart: the next successful call measures the recovery. */
  void restarted() {
    restartedAt.set(clock.getAsLong());
  }

  void ok() {
    ok(-1);
  }

  /**
   * A call succeeded.
   *
   * @param latencyNanos from the call's start to its reply, or negative if not measured
   */
  void ok(long latencyNanos) {
    if (latencyNanos >= 0) {
      latencies.get(phase).recordValue(latencyNanos);
      interval.recordValue(latencyNanos);
    }
    ok.increment();
    lastOk = clock.getAsLong();
    long since = restartedAt.get();
    if (since != 0 && restartedAt.compareAndSet(since, 0)) {
      synchronized (this) {
        recoveries.add(clock.getAsLong() - since);
      }
    }
  }

  /** A call answered, but not with what was asked: always a finding, in a window or not. */
  void badReply(String what) {
    badReplies.increment();
    error(new IllegalStateException("wrong reply to " + what), "bad-reply");
  }

  void error(Throwable t) {
    Throwable cause = AsyncUnwrap.cause(t);
    error(cause, kind(cause));
  }

  /**
   * A call of {@code pool} failed; its kind is {@link #kind} after the pool's name, e.g. {@code
   * "sync transport-eof"}. A call that timed out only behind another timed-out call is no error of
   * its own: it counts in {@link #timedOutBehind()}.
   */
  void poolError(Throwable t, String pool) {
    Throwable cause = AsyncUnwrap.cause(t);
    if (cause instanceof CallTimeoutException timeout && timeout.behindTimedOutCall()) {
      timedOutBehind.increment();
      return;
    }
    error(cause, pool + " " + kind(cause));
  }

  /**
   * A slow call of {@code pool} ended {@code latencyNanos} after it started, with {@code failure}
   * or, if {@code null}, a reply. A timeout is what it is for ({@link #slowTimedOut()}); a reply
   * means the call timeout did not end it ({@link #slowAnswered()}, a finding); any other failure
   * is an error like any call's, of kind {@code "sync slow transport-eof"} and so on.
   */
  void slowCallEnded(Throwable failure, String pool, long latencyNanos) {
    if (failure == null) {
      slowAnswered.computeIfAbsent(pool, p -> new LongAdder()).increment();
      slowAnsweredLongest.accumulateAndGet(latencyNanos, Math::max);
      return;
    }
    if (kind(AsyncUnwrap.cause(failure)).equals("timeout")) {
      slowTimedOut.increment();
      return;
    }
    poolError(failure, pool + " slow");
  }

  /**
   * The pools have ejected {@code total} endpoints so far; those not seen before count in the
   * window open now. Called often (every 100 ms), so that an ejection is placed near its moment.
   */
  synchronized void ejections(long total) {
    long n = total - ejectionsSeen;
    if (n > 0) {
      ejectionsSeen = total;
      ejections.merge(windowAt(clock.getAsLong()), n, Long::sum);
    }
  }

  private void error(Throwable cause, String kind) {
    Window w = windowAt(clock.getAsLong());
    errors.get(w).computeIfAbsent(kind, k -> new LongAdder()).increment();
    examples.putIfAbsent(kind, String.valueOf(cause));
  }

  private synchronized Window windowAt(long now) {
    Window found = Window.NONE;
    for (int i = faults.size() - 1; i >= 0; i--) {
      Fault f = faults.get(i);
      if (f.start <= now && now <= f.end) {
        if (f.kind == Window.RESTART) {
          return Window.RESTART;
        }
        // A connection kill explains more errors than a graceful restart, which explains none.
        if (f.kind == Window.KILL || found == Window.NONE) {
          found = f.kind;
        }
      }
    }
    return found;
  }

  /**
   * A short name for what went wrong: the exception's class, with Thrift's type where it has one.
   */
  static String kind(Throwable t) {
    if (t instanceof PoolTimeoutException) {
      return "pool-borrow-timeout";
    }
    if (t instanceof TTransportException tte) {
      Throwable c = tte.getCause();
      if (tte.getType() == TTransportException.TIMED_OUT || c instanceof SocketTimeoutException) {
        return "timeout";
      }
      if (c instanceof ConnectException) {
        return "connect-refused";
      }
      return switch (tte.getType()) {
        case TTransportException.NOT_OPEN -> "transport-not-open";
        case TTransportException.END_OF_FILE -> "transport-eof";
        default -> "transport" + (c != null ? "-" + c.getClass().getSimpleName() : "");
      };
    }
    if (t instanceof TApplicationException tae) {
      return "application-" + tae.getType();
    }
    if (t instanceof TimeoutException || t instanceof SocketTimeoutException) {
      return "timeout";
    }
    if (t instanceof ConnectException) {
      return "connect-refused";
    }
    if (t instanceof TException || t instanceof IOException) {
      Throwable c = t.getCause();
      return t.getClass().getSimpleName()
          + (c != null && c != t ? "-" + c.getClass().getSimpleName() : "");
    }
    return t.getClass().getSimpleName();
  }

  /** Latencies of the successful calls in phase {@code p}, in nanoseconds; a copy. */
  Histogram latencies(Phase p) {
    return latencies.get(p).copy();
  }

  /**
   * The 99th percentile latency in milliseconds of the calls that succeeded since the last call of
   * this method, or 0 if none did; one caller (the sampler) at a time.
   */
  synchronized double intervalP99Millis() {
    intervalScratch = interval.getIntervalHistogram(intervalScratch);
    return intervalScratch.getTotalCount() == 0
        ? 0
        : intervalScratch.getValueAtPercentile(99) / 1e6;
  }

  /** {@link System#nanoTime()} of the last successful call, or 0 if none succeeded. */
  long lastOkNanos() {
    return lastOk;
  }

  long okCalls() {
    return ok.sum();
  }

  long errors(Window w) {
    return errors.get(w).values().stream().mapToLong(LongAdder::sum).sum();
  }

  long errors() {
    long n = 0;
    for (Window w : Window.values()) {
      n += errors(w);
    }
    return n;
  }

  long badReplies() {
    return badReplies.sum();
  }

  /** Slow calls that timed out, as they should. */
  long slowTimedOut() {
    return slowTimedOut.sum();
  }

  /** Slow calls that got a reply: the call timeout did not end them. */
  long slowAnswered() {
    return slowAnswered.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** {@link #slowAnswered()} by pool, sorted. */
  Map<String, Long> slowAnsweredByPool() {
    Map<String, Long> m = new TreeMap<>();
    slowAnswered.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  /** The longest time from start to reply of an answered slow call, in nanoseconds; 0 if none. */
  long slowAnsweredLongestNanos() {
    return slowAnsweredLongest.get();
  }

  /** Calls that timed out only behind another timed-out call on their connection. */
  long timedOutBehind() {
    return timedOutBehind.sum();
  }

  /** Ejections that happened in window {@code w}; {@code NONE}: of a live server. */
  synchronized long ejections(Window w) {
    return ejections.getOrDefault(w, 0L);
  }

  /** Errors by kind in one window kind, sorted by kind. */
  Map<String, Long> errorsByKind(Window w) {
    Map<String, Long> m = new TreeMap<>();
    errors.get(w).forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  /** One message per error kind, the first seen. */
  Map<String, String> examples() {
    return new TreeMap<>(examples);
  }

  /** Nanoseconds from each restart to the first successful call after it. */
  synchronized List<Long> recoveries() {
    return List.copyOf(recoveries);
  }
}
