package io.thriftnio.core.util.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import javax.security.auth.Subject;

/**
 * Runs an action as a JAAS {@link Subject} (where GSSAPI finds its Kerberos credentials): the one
 * place the library does, for SASL servers and clients alike. On Java 18 and later it is {@code
 * Subject.callAs}; on Java 17, which has no {@code callAs}, the {@code Subject.doAs} that later
 * JDKs deprecate for removal. Either way the action's own exception comes out, unwrapped.
 */
public final class Subjects {

  /** {@code Subject.callAs(Subject, Callable)}, or {@code null} on Java 17. */
  private static final MethodHandle CALL_AS = callAs();

  private Subjects() {}

  private static MethodHandle callAs() {
    try {
      return MethodHandles.publicLookup()
          .findStatic(
              Subject.class,
              "callAs",
              MethodType.methodType(Object.class, Subject.class, Callable.class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null; // Java 17
    }
  }

  /**
   * Runs {@code action} as {@code subject}, or directly when there is none.
   *
   * @param subject the subject; {@code null} for none
   * @return what the action returned
   * @throws Exception what the action threw
   */
  public static <T> T call(Subject subject, Callable<T> action) throws Exception {
    if (subject == null) {
      return action.call();
    }
    if (CALL_AS == null) {
      return doAs(subject, action);
    }
    try {
      @SuppressWarnings("unchecked")
      T result = (T) CALL_AS.invokeExact(subject, action);
      return result;
    } catch (CompletionException e) {
      // callAs wraps a checked exception of the action's.
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @SuppressWarnings("removal") // Java 17 has no Subject.callAs
  private static <T> T doAs(Subject subject, Callable<T> action) throws Exception {
    try {
      return Subject.doAs(subject, (PrivilegedExceptionAction<T>) action::call);
    } catch (PrivilegedActionException e) {
      throw e.getException();
    }
  }
}
