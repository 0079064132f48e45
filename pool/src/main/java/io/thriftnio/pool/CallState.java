package io.thriftnio.pool;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.thrift.transport.TTransportException;

/**
 * The part of a channel-pool call that its deadline watches: the attempt in progress and the
 * caller's future. A call without a deadline has none ({@code null} where one is taken).
 */
final class CallState {
  final Deadline deadline;
  volatile AsyncBorrows.Choice choice;
  volatile CompletableFuture<ByteBuffer> caller;

  CallState(Deadline deadline) {
    this.deadline = deadline;
  }

  /** Set when an attempt is sent with the time left as its timeout. */
  volatile boolean timeoutIsDeadline;

  /**
   * Whether the deadline, not the endpoint, ended a call with {@code failure}: it has passed, or
   * the call timed out having been sent with the time left as its timeout (a timer may fire a hair
   * before the clock reaches the deadline).
   */
  boolean explains(Throwable failure) {
    if (deadline.passed()) {
      return true;
    }
    Throwable f = Failures.unwrap(failure);
    return timeoutIsDeadline
        && (f instanceof java.util.concurrent.TimeoutException
            || (f instanceof TTransportException
                && ((TTransportException) f).getType() == TTransportException.TIMED_OUT));
  }

  /** Whether the caller has heard already, or its deadline passed: nothing more to send. */
  boolean over() {
    CompletableFuture<ByteBuffer> c = caller;
    return (c != null && c.isDone()) || deadline.passed();
  }

  /**
   * The timeout to send an attempt with: the smallest of the call's {@code timeout}, the channels'
   * own ({@code channelTimeoutNanos}, 0 if unknown) and the time left.
   */
  Duration bound(Duration timeout, long channelTimeoutNanos) {
    long own = timeout != null ? timeout.toNanos() : channelTimeoutNanos;
    long bounded = deadline.attemptNanos(own, 0);
    if (bounded != own) {
      timeoutIsDeadline = true;
    }
    return Duration.ofNanos(bounded);
  }

  /** The deadline of {@code state}, or {@code null} for a call without one. */
  static Deadline deadline(CallState state) {
    return state == null ? null : state.deadline;
  }
}
