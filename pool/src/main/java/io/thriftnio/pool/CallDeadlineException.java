package io.thriftnio.pool;

import io.thriftnio.core.ServerCallContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.thrift.transport.TTransportException;

/**
 * A call outlived its deadline: {@link PoolBuilder#callDeadline(java.time.Duration)}, or the one
 * given to that call (as in {@link ThriftClientPool#call(Duration, ThriftClientPool.ClientCall)}).
 * A {@code TTransportException} of type {@code TIMED_OUT}, as a connection's own timeout is, that
 * also says where the time went ({@link #inCall()}) and the pool state: {@code ThriftChannelPool:
 * call deadline of 200ms passed while waiting for a connection (total=8, active=8, idle=0,
 * waiting=31)}. While waiting, nothing was sent; in the call, the request may have reached the
 * server. Never retried.
 *
 * <p>How each pool ends a call in flight at its deadline:
 *
 * <ul>
 *   <li>{@link ThriftClientPool}: the connection is closed under the blocked call (a read timeout
 *       bounds each read, not a call, so it cannot stand for the deadline), and destroyed.
 *   <li>{@link ThriftAsyncClientPool}: the caller hears at the deadline; the client's own call
 *       timeout is set to the time left, so the client fails and is destroyed by then too.
 *   <li>{@link ThriftChannelPool}: the caller hears at the deadline; the call keeps its slot on the
 *       shared connection until its reply (discarded) or the channel's own timeout, since cutting
 *       it short would close the connection under the other calls it carries.
 * </ul>
 *
 * A call still waiting in an async pool's queue at its deadline gives its connection back unused
 * when it is served.
 */
public final class CallDeadlineException extends TTransportException {
  private static final long serialVersionUID = 1L;

  private final boolean inCall;
  private final Duration deadline;
  private final transient InetSocketAddress endpoint;
  private final transient PoolStats stats;

  /**
   * Creates the exception.
   *
   * @param pool names the pool
   * @param inCall true if the call was sent and waiting for its reply, false if it was waiting for
   *     a connection
   * @param deadline the deadline that passed
   * @param endpoint the endpoint of the call in flight, {@code null} while waiting
   * @param stats the pool state when it passed
   * @param cause the failure the deadline caused (the call's, when it was cut short), or {@code
   *     null}
   */
  CallDeadlineException(
      String pool,
      boolean inCall,
      Duration deadline,
      InetSocketAddress endpoint,
      PoolStats stats,
      Throwable cause) {
    super(
        TIMED_OUT,
        pool
            + ": call deadline of "
            + deadline.toMillis()
            + "ms passed "
            + (inCall
                ? "in a call to " + Names.endpoint(endpoint)
                : "while waiting for a connection")
            + " ("
            + stats.gauges()
            + ")",
        cause);
    this.inCall = inCall;
    this.deadline = deadline;
    this.endpoint = endpoint;
    this.stats = stats;
  }

  private CallDeadlineException(String message, Duration deadline, PoolStats stats) {
    super(TIMED_OUT, message);
    this.inCall = false;
    this.deadline = deadline;
    this.endpoint = null;
    this.stats = stats;
  }

  /**
   * A call made on a thread running a server call whose caller has stopped waiting: it fails before
   * anything is sent.
   */
  static CallDeadlineException inherited(
      String pool, ServerCallContext server, long passedNanos, PoolStats stats) {
    return new CallDeadlineException(
        pool
            + ": call deadline inherited from the server call "
            + server.methodName()
            + " on this thread passed "
            + Math.max(1, passedNanos / 1_000_000)
            + "ms ago; nothing sent ("
            + stats.gauges()
            + ")",
        Duration.ZERO,
        stats);
  }

  /**
   * Where the call was when its deadline passed.
   *
   * @return {@code true} if it had been sent and was waiting for its reply: the request may have
   *     reached the server; {@code false} if it was waiting for a connection (or connecting):
   *     nothing was sent
   */
  public boolean inCall() {
    return inCall;
  }

  /** The deadline that passed: the pool's, or the call's own when it was given one. */
  public Duration deadline() {
    return deadline;
  }

  /** The endpoint of the call in flight; {@code null} when it was waiting for a connection. */
  public InetSocketAddress endpoint() {
    return endpoint;
  }

  /** The pool state when the deadline passed. */
  public PoolStats stats() {
    return stats;
  }
}
