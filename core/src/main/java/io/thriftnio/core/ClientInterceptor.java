package io.thriftnio.core;

import java.util.function.Supplier;
import org.apache.thrift.TException;

/**
 * Runs around every Thrift call a client makes, with its {@link ClientCallContext}: for access
 * logs, metrics, tracing, client-side limits. Framed Thrift has no headers, so an interceptor adds
 * nothing to the wire; it can refuse a call before anything is sent.
 *
 * <p>Configured, in order, on a channel with {@link ClientOptions.Builder#interceptors} and on
 * every pool with {@code PoolBuilder.interceptors} (module {@code thrift-nio-pool}).
 *
 * <pre>
 *  call  -&gt; beforeCall(1) -&gt; beforeCall(2) -&gt; request on the wire
 *  reply &lt;- afterCall(1)  &lt;- afterCall(2)  &lt;- reply, failure or timeout
 * </pre>
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>One {@code beforeCall} and one {@code afterCall} per Thrift message sent, however the
 *       messages are grouped: a pool lambda that makes two calls makes two pairs.
 *   <li>{@link #beforeCall} runs on the calling thread, in configuration order, before any byte of
 *       the request is sent. Throwing a {@link TException} refuses the call: nothing is sent, later
 *       interceptors' {@code beforeCall} does not run, and the caller gets that very exception (a
 *       synchronous call throws it, a future fails with it). Any other exception refuses the call
 *       too, and the caller gets a {@code TException} that names the interceptor, the method and
 *       the endpoint, with the exception as its cause. Either way the outcome is {@link
 *       CallOutcome#REFUSED}.
 *   <li>{@link #afterCall} runs once the call has ended, in reverse order, for every interceptor
 *       whose {@code beforeCall} returned normally, before the caller sees the result. It runs on
 *       the thread that ended the call: the caller's for a synchronous call, an IO, timer or
 *       callback thread for an asynchronous one. An exception it throws is logged at WARN and
 *       changes nothing: the caller gets the same result, and the other interceptors still run.
 * </ul>
 *
 * <p>Implementations are shared by every connection and called concurrently: they must be
 * thread-safe, and must not block, since {@code afterCall} may run on an IO thread.
 */
public interface ClientInterceptor {

  /**
   * The call is about to be sent. Attributes set on {@code context} here are seen by {@link
   * #afterCall}.
   *
   * @param context the call's context
   * @throws TException to refuse the call; the caller gets this exception and nothing is sent
   */
  default void beforeCall(ClientCallContext context) throws TException {}

  /**
   * The call is over.
   *
   * @param context the call's context
   * @param outcome how it ended
   * @param failure what ended it for {@link CallOutcome#TRANSPORT_FAILURE}, {@link
   *     CallOutcome#TIMED_OUT} and {@link CallOutcome#REFUSED}; for {@link
   *     CallOutcome#APPLICATION_EXCEPTION}, the {@link org.apache.thrift.TApplicationException} the
   *     reply carried (an {@code INTERNAL_ERROR}, an {@code UNKNOWN_METHOD}, a server's
   *     refusal...), with the type, code and message of the one the caller's generated client
   *     throws; {@code null} for the others: a reply with the return value or an exception the IDL
   *     declares (the generated client decodes it after this hook), or a oneway message written
   * @param nanos the time from the first interceptor's {@code beforeCall} to the end of the call,
   *     in nanoseconds ({@link System#nanoTime()} differences)
   */
  default void afterCall(
      ClientCallContext context, CallOutcome outcome, Throwable failure, long nanos) {}

  /**
   * Makes something current on the thread that continues the caller's work once the call has ended:
   * where an asynchronous call's future completes its dependents, or its callback runs ({@link
   * #afterCall} runs inside too). The around form of an interceptor: a trace context the caller had
   * when it made the call is current again in its continuation, so that calls made there carry it
   * on. A synchronous call returns on the caller's own thread, which kept its context: nothing is
   * attached there. Called in configuration order; what it returns (its scope, a {@code Runnable}
   * that must not throw) is run on the same thread in reverse order, to undo it. By default nothing
   * is made current.
   *
   * @param context the call's context
   * @return what undoes it, run on this thread when the continuation has run; {@code () -> {}} for
   *     nothing
   */
  default Runnable attach(ClientCallContext context) {
    return () -> {};
  }

  /**
   * Takes from the calling thread what {@link #beforeCall} reads from it (a trace context, an MDC
   * entry), for a message a pool sends later from another thread: a {@code ThriftChannelPool} call
   * that waits for a connection, a retry, a hedge. Called on the calling thread when the call is
   * made; where the message is then sent from another thread, the supplier's {@code get()} runs
   * there before {@code beforeCall}, and the {@code Runnable} it returns runs once the message is
   * handed to the connection, to undo it. Where the message leaves from the calling thread, nothing
   * is resumed. By default nothing is taken.
   *
   * <pre>{@code
   * public Supplier<Runnable> capture() {
   *   String caller = MDC.get("caller");
   *   return () -> {
   *     MDC.put("caller", caller);
   *     return () -> MDC.remove("caller");
   *   };
   * }
   * }</pre>
   *
   * @return makes current, where the message is sent, what was taken, and returns what undoes it
   *     (run on that thread); {@code () -> () -> {}} for nothing
   */
  default Supplier<Runnable> capture() {
    return () -> () -> {};
  }
}
