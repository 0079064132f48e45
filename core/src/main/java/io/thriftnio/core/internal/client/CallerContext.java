package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.util.internal.HeaderSlot;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a call takes from the thread that made it, for a message sent later from another thread (a
 * pool call that waits for a connection, a retry, a hedge): the {@code HeaderScope} current there
 * and what the interceptors {@linkplain ClientInterceptor#capture() capture}. {@link #here} gives
 * {@code null} when there is nothing to take, so such a call costs no allocation. Not part of the
 * API.
 */
public final class CallerContext {
  private static final Logger log = LoggerFactory.getLogger(CallerContext.class);

  private final Thread thread = Thread.currentThread();
  private final HeaderSlot headers;
  private final Supplier<Runnable>[] captured;

  private CallerContext(HeaderSlot headers, Supplier<Runnable>[] captured) {
    this.headers = headers;
    this.captured = captured;
  }

  /**
   * The interceptors of {@code chain} that override {@link ClientInterceptor#capture()}, or {@code
   * null} for none: decided once, when a pool is built.
   */
  public static ClientInterceptor[] capturing(List<ClientInterceptor> chain) {
    ClientInterceptor[] c =
        chain.stream().filter(CallerContext::overridesCapture).toArray(ClientInterceptor[]::new);
    return c.length == 0 ? null : c;
  }

  private static boolean overridesCapture(ClientInterceptor interceptor) {
    try {
      return interceptor.getClass().getMethod("capture").getDeclaringClass()
          != ClientInterceptor.class;
    } catch (NoSuchMethodException e) {
      throw new AssertionError(e); // ClientInterceptor declares it
    }
  }

  /**
   * Takes the calling thread's context.
   *
   * @param capturing from {@link #capturing}, or {@code null}
   * @return the context, or {@code null} when there is nothing to take
   */
  public static CallerContext here(ClientInterceptor[] capturing) {
    HeaderSlot headers = HeaderSlot.current();
    if (capturing == null) {
      return headers == null ? null : new CallerContext(headers, null);
    }
    @SuppressWarnings("unchecked") // an array of the one type capture() returns
    Supplier<Runnable>[] captured = (Supplier<Runnable>[]) new Supplier<?>[capturing.length];
    for (int i = 0; i < capturing.length; i++) {
      try {
        captured[i] = capturing[i].capture();
      } catch (Throwable t) {
        // Nothing is sent yet, but a capture is context, not a check: the call goes on without it.
        log.warn("Client interceptor {} failed to capture", capturing[i].getClass().getName(), t);
      }
    }
    return new CallerContext(headers, captured);
  }

  /**
   * Runs {@code send}: as it is on the caller's thread, and elsewhere with the caller's context
   * made current around it.
   *
   * @param caller from {@link #here}, or {@code null}
   */
  public static <T> T sendIn(CallerContext caller, Supplier<T> send) {
    if (caller == null || caller.thread == Thread.currentThread()) {
      return send.get();
    }
    HeaderSlot before = HeaderSlot.makeCurrent(caller.headers);
    Runnable[] scopes = caller.resume();
    try {
      return send.get();
    } finally {
      AttachScopes.close(scopes);
      HeaderSlot.makeCurrent(before);
    }
  }

  private Runnable[] resume() {
    if (captured == null) {
      return null;
    }
    Runnable[] scopes = new Runnable[captured.length];
    for (int i = 0; i < captured.length; i++) {
      if (captured[i] == null) {
        continue;
      }
      try {
        scopes[i] = captured[i].get();
      } catch (Throwable t) {
        // The message is sent without it: context, not a check.
        log.warn("A client interceptor's captured context {} failed to resume", captured[i], t);
      }
    }
    return scopes;
  }
}
