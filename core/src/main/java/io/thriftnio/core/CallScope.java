package io.thriftnio.core;

/**
 * What an interceptor made current on a thread for a part of a call, undone by {@link #close()}: a
 * trace span, an MDC entry, a security identity. Returned by {@link
 * ServerInterceptor#attach(ServerCallContext)} and {@link
 * ClientInterceptor#attach(ClientCallContext)}; the library closes each scope on the thread that
 * opened it, in the reverse order of opening.
 *
 * <pre>{@code
 * public CallScope attach(ServerCallContext context) {
 *   MDC.put("caller", String.valueOf(context.remoteAddress()));
 *   return () -> MDC.remove("caller");
 * }
 * }</pre>
 */
@FunctionalInterface
public interface CallScope extends AutoCloseable {

  /** A scope that made nothing current. */
  CallScope NONE = () -> {};

  /** Undoes what the scope made current; must not throw. */
  @Override
  void close();
}
