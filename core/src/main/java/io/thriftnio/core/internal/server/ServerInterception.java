package io.thriftnio.core.internal.server;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link InvokerCall} does with a server's interceptors beside {@code beforeCall}: their
 * {@code afterCall}s, and the around form ({@link ServerInterceptor#attach}): which interceptors
 * override it, decided once when the invoker is built, and the opening and closing of their scopes
 * around one part of a call. With none overriding it, a call pays one array-length check.
 *
 * <p>An exception from {@code attach} fails the call as one from {@code beforeCall} does (the
 * caller decides: {@link InvokerCall#openScopes}); the scopes already opened are closed first. An
 * exception from a scope's {@code run()}, or from {@code afterCall}, is logged at WARN and changes
 * nothing: the reply is decided by then, and the others still run.
 */
final class ServerInterception {
  private static final Logger log = LoggerFactory.getLogger(ServerInterception.class);

  /** Opened nothing: no interceptor overrides {@code attach}. */
  static final Runnable[] NONE = new Runnable[0];

  /** The scope of an {@code attach} that returned {@code null}: nothing to undo. */
  private static final Runnable NOTHING = () -> {};

  /** Why {@link #open} failed: the interceptor and its exception. */
  static final class AttachFailure extends Exception {
    private static final long serialVersionUID = 1L;

    final transient ServerInterceptor interceptor;

    AttachFailure(ServerInterceptor interceptor, Throwable cause) {
      super(cause.toString(), cause, false, false);
      this.interceptor = interceptor;
    }
  }

  private ServerInterception() {}

  /** The interceptors whose class overrides {@code attach}, in configuration order. */
  static ServerInterceptor[] attaching(ServerInterceptor[] interceptors) {
    List<ServerInterceptor> attaching = new ArrayList<>();
    for (ServerInterceptor interceptor : interceptors) {
      if (overridesAttach(interceptor.getClass())) {
        attaching.add(interceptor);
      }
    }
    return attaching.toArray(new ServerInterceptor[0]);
  }

  private static boolean overridesAttach(Class<?> type) {
    try {
      Method attach = type.getMethod("attach", ServerCallContext.class);
      return attach.getDeclaringClass() != ServerInterceptor.class;
    } catch (NoSuchMethodException impossible) {
      return true; // every ServerInterceptor has it; if reflection says otherwise, call it anyway
    }
  }

  /**
   * Opens every scope, in order.
   *
   * @return the scopes opened, to {@link #close} on this thread
   * @throws AttachFailure if one {@code attach} threw: those opened before it are closed already
   */
  static Runnable[] open(ServerInterceptor[] attaching, ServerCallContext context)
      throws AttachFailure {
    Runnable[] scopes = new Runnable[attaching.length];
    for (int i = 0; i < attaching.length; i++) {
      try {
        Runnable scope = attaching[i].attach(context);
        scopes[i] = scope != null ? scope : NOTHING;
      } catch (Throwable t) {
        close(scopes, attaching, context);
        throw new AttachFailure(attaching[i], t);
      }
    }
    return scopes;
  }

  /** Closes the scopes opened, last first; a failing one is logged and the others still close. */
  static void close(Runnable[] scopes, ServerInterceptor[] attaching, ServerCallContext context) {
    for (int i = scopes.length - 1; i >= 0; i--) {
      Runnable scope = scopes[i];
      if (scope == null) {
        continue; // not opened: its attach, or an earlier one, threw
      }
      try {
        scope.run();
      } catch (Throwable t) {
        // The reply is decided; a failing close must not change it or leave the others open.
        log.warn(
            "Interceptor {}'s scope failed to close after {} (seqid {}) from {}",
            attaching[i].getClass().getName(),
            context.methodName(),
            context.seqId(),
            context.remoteAddress(),
            t);
      }
    }
  }

  /** Runs {@code afterCall} of the first {@code entered} interceptors, last first. */
  static void afterCall(
      ServerInterceptor[] interceptors,
      int entered,
      ServerCallContext c,
      CallOutcome outcome,
      long nanos) {
    for (int i = entered - 1; i >= 0; i--) {
      try {
        interceptors[i].afterCall(c, outcome, nanos);
      } catch (Throwable t) {
        // The reply is decided; a failing afterCall must not change it or skip the others.
        log.warn(
            "Interceptor {} failed after {} (seqid {}, {}) from {}",
            interceptors[i].getClass().getName(),
            c.methodName(),
            c.seqId(),
            outcome,
            c.remoteAddress(),
            t);
      }
    }
  }

  /**
   * Says at WARN that an interceptor threw {@code phase} a call, which is answered INTERNAL_ERROR.
   */
  static void warnFailed(
      ServerInterceptor interceptor, String phase, ServerCallContext c, Throwable t) {
    log.warn(
        "Interceptor {} failed {} {} (seqid {}) from {}; answering INTERNAL_ERROR",
        interceptor.getClass().getName(),
        phase,
        c.methodName(),
        c.seqId(),
        c.remoteAddress(),
        t);
  }
}
