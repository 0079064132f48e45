package io.thriftnio.core.util.internal;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Checks the methods of a {@code FutureIface}, the interface Thrift's Java generator writes with
 * its {@code future_iface} option, before a proxy implements it. Not part of the API.
 *
 * <p>Each proxy method returns the {@code CompletableFuture} of one call, so every method must
 * return {@code CompletableFuture<T>} where {@code T} is what the call yields ({@code Void} for a
 * void or oneway method). A mismatch found here is an {@link IllegalArgumentException} at proxy
 * creation that names the method, rather than a {@code ClassCastException} in the caller's code at
 * the first reply.
 */
public final class FutureMethods {

  private FutureMethods() {}

  /**
   * The methods a proxy of {@code futureIface} implements: its abstract and default methods, none
   * of its static ones.
   *
   * @param param the parameter's name, for the message
   * @throws IllegalArgumentException if {@code futureIface} is not an interface
   */
  public static List<Method> of(String param, Class<?> futureIface) {
    if (!futureIface.isInterface()) {
      throw new IllegalArgumentException(
          param + ": " + futureIface.getName() + " (expected: an interface)");
    }
    List<Method> methods = new ArrayList<>();
    for (Method m : futureIface.getMethods()) {
      if (!Modifier.isStatic(m.getModifiers())) {
        methods.add(m);
      }
    }
    return methods;
  }

  /**
   * Fails unless {@code method} returns {@code CompletableFuture<R>} with {@code R} the boxed form
   * of {@code result} ({@code Void} for {@code void}).
   *
   * @param param the parameter's name, for the message
   * @param method a method of the interface
   * @param result what the call yields: {@code recv_x}'s return type, or the type argument of the
   *     async client's {@code AsyncMethodCallback}
   * @throws IllegalArgumentException naming the method, what it returns and what it should
   */
  public static void check(String param, Method method, Type result) {
    Type expected = boxed(result);
    Type returned = method.getGenericReturnType();
    if (returned instanceof ParameterizedType
        && ((ParameterizedType) returned).getRawType() == CompletableFuture.class
        && ((ParameterizedType) returned).getActualTypeArguments()[0].equals(expected)) {
      return;
    }
    throw new IllegalArgumentException(
        param
            + ": "
            + describe(method)
            + " returns "
            + returned.getTypeName()
            + " (expected: java.util.concurrent.CompletableFuture<"
            + expected.getTypeName()
            + ">, as Thrift's --gen java:future_iface writes it)");
  }

  /** {@code a.b.Service.FutureIface.echo(java.nio.ByteBuffer)}, for messages. */
  public static String describe(Method method) {
    Class<?> owner = method.getDeclaringClass();
    String ownerName =
        owner.getCanonicalName() != null ? owner.getCanonicalName() : owner.getName();
    StringBuilder s = new StringBuilder(ownerName).append('.').append(method.getName()).append('(');
    Class<?>[] params = method.getParameterTypes();
    for (int i = 0; i < params.length; i++) {
      s.append(i == 0 ? "" : ", ").append(params[i].getTypeName());
    }
    return s.append(')').toString();
  }

  private static Type boxed(Type type) {
    return type instanceof Class && ((Class<?>) type).isPrimitive()
        ? MethodType.methodType((Class<?>) type).wrap().returnType()
        : type;
  }
}
