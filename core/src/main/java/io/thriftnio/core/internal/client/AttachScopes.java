package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.util.internal.Continuations;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The around form of a chain of client interceptors ({@link ClientInterceptor#attach}): the scopes
 * opened, in order, around a call's continuation (where its future completes, its callback runs)
 * and closed on the same thread in reverse order. Only interceptors that override {@code attach}
 * take part; with none, {@link #of} gives {@code null} and a call costs nothing more.
 */
final class AttachScopes {
  private static final Logger log = LoggerFactory.getLogger(AttachScopes.class);

  private final ClientInterceptor[] attaching;

  private AttachScopes(ClientInterceptor[] attaching) {
    this.attaching = attaching;
  }

  /** The interceptors of {@code chain} that override {@code attach}, or {@code null} for none. */
  static AttachScopes of(List<ClientInterceptor> chain) {
    ClientInterceptor[] a =
        chain.stream().filter(AttachScopes::overridesAttach).toArray(ClientInterceptor[]::new);
    return a.length == 0 ? null : new AttachScopes(a);
  }

  /** Whether {@code interceptor}'s class overrides the default, which makes nothing current. */
  private static boolean overridesAttach(ClientInterceptor interceptor) {
    try {
      return interceptor.getClass().getMethod("attach", ClientCallContext.class).getDeclaringClass()
          != ClientInterceptor.class;
    } catch (NoSuchMethodException e) {
      throw new AssertionError(e); // ClientInterceptor declares it
    }
  }

  /** Opens the scopes of the call, in order, on this thread. */
  Runnable[] open(ClientCallContext context) {
    Runnable[] scopes = new Runnable[attaching.length];
    for (int i = 0; i < attaching.length; i++) {
      try {
        scopes[i] = attaching[i].attach(context);
      } catch (Throwable t) {
        // The call's outcome is decided: a failing attach leaves its scope out, nothing else.
        log.warn(
            "Client interceptor {} failed to attach for {} to {}",
            attaching[i].getClass().getName(),
            context.methodName(),
            ClientErrors.peer(context.remoteAddress()),
            t);
      }
    }
    return scopes;
  }

  /**
   * {@code task}, a continuation of the call handed to another thread (the async bridge's hop to
   * the caller's executor): run inside the call's scopes there, and so are its own hops.
   */
  Runnable around(ClientCallContext context, Runnable task) {
    return () -> {
      Runnable[] scopes = open(context);
      try {
        Continuations.completing(t -> around(context, t), task);
      } finally {
        close(scopes);
      }
    };
  }

  /** Closes {@code scopes} (may be {@code null}) in reverse order. */
  static void close(Runnable[] scopes) {
    if (scopes == null) {
      return;
    }
    for (int i = scopes.length - 1; i >= 0; i--) {
      if (scopes[i] == null) {
        continue;
      }
      try {
        scopes[i].run();
      } catch (Throwable t) {
        // A scope must not throw; one that does must not keep the others open.
        log.warn("A client interceptor's call scope {} failed to close", scopes[i], t);
      }
    }
  }
}
