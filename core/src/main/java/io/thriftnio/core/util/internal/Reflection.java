package io.thriftnio.core.util.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import org.apache.thrift.TException;

/** Calls on generated Thrift clients through reflection, for the proxies. Not part of the API. */
public final class Reflection {

  private Reflection() {}

  /**
   * Calls {@code method} on {@code target}, throwing what it threw: a {@link TException}, runtime
   * exception or error as it is, any other checked exception (no generated method declares one)
   * wrapped in an {@link UndeclaredThrowableException}.
   */
  public static Object invoke(Method method, Object target, Object[] args) throws TException {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof TException) {
        throw (TException) cause;
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new UndeclaredThrowableException(cause);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(method + " is not accessible", e);
    }
  }

  /**
   * {@code equals}, {@code hashCode} and {@code toString} of a proxy, by identity.
   *
   * @param description what {@code toString} returns
   */
  public static Object objectMethod(
      Object proxy, Method method, Object[] args, String description) {
    switch (method.getName()) {
      case "equals":
        return proxy == args[0];
      case "hashCode":
        return System.identityHashCode(proxy);
      default:
        return description;
    }
  }
}
