package io.thriftnio.core;

import org.apache.thrift.TApplicationException;

/**
 * Runs around every call a server serves, with its {@link ServerCallContext}: for access logs,
 * authorisation, limits, metrics. Configured, in order, with {@link
 * ServerBuilder#interceptors(java.util.List)}.
 *
 * <pre>
 *  request -&gt; beforeCall(1) -&gt; beforeCall(2) -&gt; handler
 *  reply   &lt;- afterCall(1)  &lt;- afterCall(2)  &lt;-+
 * </pre>
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@link #beforeCall} runs on the thread that will run the handler (the IO thread or a
 *       worker, as the {@link IoStrategy} says), in configuration order, before the arguments are
 *       read. Throwing a {@link TApplicationException} refuses the call: the handler never runs,
 *       later interceptors' {@code beforeCall} neither, and the caller gets that exception's type
 *       and message (nothing for a oneway call); the call counts as failed.
 *   <li>{@link #afterCall} runs once the reply is built, in reverse order, for every interceptor
 *       whose {@code beforeCall} returned normally, on the thread that completed the call (for an
 *       asynchronous processor, the one its handler called back on), before the reply is queued. A
 *       call answered by {@link ServerBuilder#handlerTimeout} ends with {@link
 *       CallOutcome#TIMED_OUT} instead, once, usually on the server's timer thread, which every
 *       connection shares: there {@code afterCall} must not block. Its late result is never seen.
 *   <li>Any other exception from {@code beforeCall} fails that call alone: the caller gets {@code
 *       TApplicationException(INTERNAL_ERROR)}, a WARN line names the interceptor, the method and
 *       the peer, and the connection stays open. An exception from {@code afterCall} is logged at
 *       WARN and does not change the reply.
 *   <li>Replies leave in request order on a pipelining connection whatever the interceptors do.
 * </ul>
 *
 * <p>Implementations are shared by every connection and called concurrently: they must be
 * thread-safe. They must not block on the IO thread ({@link IoStrategy#SAME_THREAD}).
 */
public interface ServerInterceptor {

  /**
   * The call is about to run. Attributes set on {@code context} here are seen by the handler
   * (through {@link ServerCallContext#current()}) and by {@link #afterCall}.
   *
   * @param context the call's context
   * @throws TApplicationException to refuse the call; its type and message reach the caller
   */
  default void beforeCall(ServerCallContext context) throws TApplicationException {}

  /**
   * The call is over.
   *
   * @param context the call's context; for a failed call, {@link ServerCallContext#failure()} says
   *     why
   * @param outcome how it ended
   * @param nanos the time from the first interceptor's {@code beforeCall} to the reply being built,
   *     in nanoseconds ({@link System#nanoTime()} differences)
   */
  default void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {}

  /**
   * Makes something current on the thread for a part of the call that runs user code: the handler's
   * method, and an asynchronous handler's completion. The around form of an interceptor (gRPC's
   * {@code Contexts.interceptCall} is the model): a trace span, an MDC entry or a security context
   * made current here is seen by the handler and by the calls it makes. Runs after every {@link
   * #beforeCall} has returned, in configuration order. It returns what undoes it (its scope, a
   * {@code Runnable} that must not throw), which the library runs on the same thread when that part
   * ends, in reverse order. By default nothing is made current.
   *
   * <pre>{@code
   * public Runnable attach(ServerCallContext context) {
   *   MDC.put("caller", String.valueOf(context.remoteAddress()));
   *   return () -> MDC.remove("caller");
   * }
   * }</pre>
   *
   * <p>The parts: a synchronous handler's method, with the call's {@link #afterCall}s; an
   * asynchronous handler's method, and its completion on the thread that calls back (where {@link
   * #afterCall} runs), unless it completes inside its method, where the scopes are open already.
   * The same on every {@link IoStrategy} and transport. Not attached: the {@code
   * afterCall(TIMED_OUT)} a {@link ServerBuilder#handlerTimeout} runs on the server's timer thread,
   * nor a call that {@link #beforeCall} refused.
   *
   * <p>An exception thrown here fails the call as one from {@link #beforeCall} does: the caller
   * gets {@code TApplicationException(INTERNAL_ERROR)}, a WARN line names the interceptor, method
   * and peer, the interceptors see {@link CallOutcome#UNDECLARED_FAILURE}, and the scopes opened
   * before it are undone first. An exception from a scope's {@code run()} is logged at WARN and
   * changes nothing. Whether an interceptor overrides this method is decided once, when the server
   * (or the handler or filter of a pipeline of your own) is built: a chain in which none does costs
   * nothing more per call.
   *
   * @param context the call's context
   * @return what undoes it, run on this thread when the part ends; {@code () -> {}} for nothing
   */
  default Runnable attach(ServerCallContext context) {
    return () -> {};
  }
}
