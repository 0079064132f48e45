package io.thriftnio.it.bench;

import io.thriftnio.core.util.internal.CallTimeoutException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one group of the {@code slowcall} command's calls ended with: a reply, a timeout of the
 * call's own ({@link CallTimeoutException}), a timeout behind another timed-out call on the same
 * connection ({@link CallTimeoutException#behindTimedOutCall()}: head-of-line blocking, inherent to
 * in-order replies), or anything else. Thread-safe.
 */
final class SlowCallOutcomes {

  /** How a call ended. */
  enum Outcome {
    OK,
    /** A {@link CallTimeoutException} of the call's own: the server was slow to answer it. */
    TIMED_OUT,
    /** A {@link CallTimeoutException} that only waited behind another timed-out call. */
    TIMED_OUT_BEHIND,
    /** Anything else: with one slow call beside it, the other call is what failed it. */
    FAILED
  }

  private final LongAdder ok = new LongAdder();
  private final LongAdder timedOut = new LongAdder();
  private final LongAdder timedOutBehind = new LongAdder();
  private final Map<String, LongAdder> failed = new ConcurrentHashMap<>();
  private final Map<String, String> examples = new ConcurrentHashMap<>();

  /**
   * The outcome of a call that ended with {@code failure}, {@code null} for a reply; wrappers of
   * {@code CompletableFuture} are looked through.
   */
  static Outcome outcome(Throwable failure) {
    if (failure == null) {
      return Outcome.OK;
    }
    Throwable cause = AsyncUnwrap.cause(failure);
    if (cause instanceof CallTimeoutException timeout) {
      return timeout.behindTimedOutCall() ? Outcome.TIMED_OUT_BEHIND : Outcome.TIMED_OUT;
    }
    return Outcome.FAILED;
  }

  /**
   * Counts a call that ended with {@code failure}, {@code null} for a good reply.
   *
   * @return its outcome
   */
  Outcome record(Throwable failure) {
    Outcome o = outcome(failure);
    switch (o) {
      case OK -> ok.increment();
      case TIMED_OUT -> timedOut.increment();
      case TIMED_OUT_BEHIND -> timedOutBehind.increment();
      case FAILED -> {
        Throwable cause = AsyncUnwrap.cause(failure);
        failed(SoakRecorder.kind(cause), String.valueOf(cause));
      }
    }
    return o;
  }

  /** Counts a call whose reply came but was not the one asked for: a failure of its own kind. */
  void wrongReply(String what) {
    failed("bad-reply", "wrong reply to " + what);
  }

  private void failed(String kind, String message) {
    failed.computeIfAbsent(kind, k -> new LongAdder()).increment();
    examples.putIfAbsent(kind, message);
  }

  long ok() {
    return ok.sum();
  }

  long timedOut() {
    return timedOut.sum();
  }

  long timedOutBehind() {
    return timedOutBehind.sum();
  }

  long failed() {
    return failed.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Calls that ended in any way. */
  long total() {
    return ok() + timedOut() + timedOutBehind() + failed();
  }

  /** Failures ({@link Outcome#FAILED}) by {@link SoakRecorder#kind}, sorted by kind. */
  Map<String, Long> failedByKind() {
    Map<String, Long> m = new TreeMap<>();
    failed.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  /** The first message of each failure kind. */
  Map<String, String> examples() {
    return new TreeMap<>(examples);
  }
}
