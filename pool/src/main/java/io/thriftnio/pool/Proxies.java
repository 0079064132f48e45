package io.thriftnio.pool;

import io.thriftnio.core.util.internal.FutureMethods;
import io.thriftnio.core.util.internal.Reflection;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the pools' interface proxies share: checks, {@code Object} methods, reflective calls. */
final class Proxies {
  private static final Logger log = LoggerFactory.getLogger(Proxies.class);

  private Proxies() {}

  /** Starts one call of a generated {@code AsyncIface} method; completes {@code future}. */
  @FunctionalInterface
  public interface AsyncStart {
    /**
     * Starts {@code method} with {@code args} (whose last element the starter replaces with its own
     * callback) and completes {@code future} with the outcome.
     */
    void start(Method method, Object[] args, CompletableFuture<Object> future);
  }

  /** Makes one call of a generated {@code Iface} method, as {@code Method.invoke} would. */
  @FunctionalInterface
  public interface SyncInvoke {
    Object invoke(Method method, Object[] args) throws Throwable;
  }

  /** A proxy implementing a generated {@code Iface}: each method is a call through {@code call}. */
  public static <I> I iface(Class<I> iface, SyncInvoke call) {
    InvocationHandler handler =
        (proxy, method, args) ->
            method.getDeclaringClass() == Object.class
                ? Reflection.objectMethod(
                    proxy, method, args, "pooled proxy for " + iface.getName())
                : call.invoke(method, args);
    return iface.cast(
        Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, handler));
  }

  /**
   * A proxy implementing a generated {@code AsyncIface}: each method starts a call through {@code
   * start} and reports its outcome to the caller's {@code AsyncMethodCallback} (the last argument)
   * where the future completes.
   *
   * @param owner names the pool in the log line of a callback that throws
   */
  public static <I> I asyncIface(Class<I> iface, String owner, AsyncStart start) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return Reflection.objectMethod(
                proxy, method, args, "pooled proxy for " + iface.getName());
          }
          @SuppressWarnings("unchecked")
          AsyncMethodCallback<Object> callback =
              (AsyncMethodCallback<Object>) args[args.length - 1];
          CompletableFuture<Object> future = new CompletableFuture<>();
          // Attached before the call starts, so it runs where the future completes.
          future.whenComplete(
              (result, failure) -> {
                try {
                  if (failure == null) {
                    callback.onComplete(result);
                  } else {
                    callback.onError(
                        failure instanceof Exception
                            ? (Exception) failure
                            : new TException(failure));
                  }
                } catch (RuntimeException e) {
                  log.warn("{}: AsyncMethodCallback of {} threw", owner, method.getName(), e);
                }
              });
          start.start(method, args, future);
          return null;
        };
    return iface.cast(
        Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, handler));
  }

  /**
   * A proxy implementing a generated {@code FutureIface} over an async client's methods: each
   * method starts the client's method of the same name through {@code start} (with one more
   * argument, the callback's slot) and returns the future {@code start} completes.
   *
   * @param clientClass the generated {@code AsyncClient}'s class, checked against every method now
   * @throws IllegalArgumentException naming the first method that does not fit ({@link
   *     #asyncMethod})
   */
  public static <I> I futureIface(Class<I> iface, Class<?> clientClass, AsyncStart start) {
    Map<Method, Method> asyncMethods = new HashMap<>();
    for (Method m : FutureMethods.of("futureIface", iface)) {
      asyncMethods.put(m, asyncMethod(m, clientClass));
    }
    InvocationHandler handler =
        (proxy, method, args) -> {
          Method async = asyncMethods.get(method);
          if (async == null) {
            return Reflection.objectMethod(
                proxy, method, args, "pooled proxy for " + iface.getName());
          }
          Object[] withSlot =
              Arrays.copyOf(args == null ? new Object[0] : args, async.getParameterCount());
          CompletableFuture<Object> future = new CompletableFuture<>();
          start.start(async, withSlot, future);
          return future;
        };
    return iface.cast(
        Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, handler));
  }

  /**
   * The async client's method that {@code futureMethod} calls: the same name and parameters plus an
   * {@code AsyncMethodCallback} of what the future yields.
   *
   * @throws IllegalArgumentException naming {@code futureMethod} if the client has no such method
   *     or its callback yields another type
   */
  static Method asyncMethod(Method futureMethod, Class<?> clientClass) {
    Class<?>[] params = futureMethod.getParameterTypes();
    Class<?>[] withCallback = Arrays.copyOf(params, params.length + 1);
    withCallback[params.length] = AsyncMethodCallback.class;
    Method async;
    try {
      async = clientClass.getMethod(futureMethod.getName(), withCallback);
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(
          "futureIface: "
              + FutureMethods.describe(futureMethod)
              + " has no counterpart "
              + futureMethod.getName()
              + "(..., AsyncMethodCallback) on "
              + clientClass.getName()
              + " (expected: the FutureIface of the client's service)",
          e);
    }
    Type[] generic = async.getGenericParameterTypes();
    Type callback = generic[generic.length - 1];
    FutureMethods.check(
        "futureIface",
        futureMethod,
        callback instanceof ParameterizedType
            ? ((ParameterizedType) callback).getActualTypeArguments()[0]
            : Object.class);
    return async;
  }

  /**
   * Fails unless {@code iface} is an interface the pooled client implements.
   *
   * @param param the parameter's name, for the message
   * @param clientClass the client's class, or {@code null} if unknown (then only checks it is an
   *     interface)
   */
  public static void checkIface(String param, Class<?> iface, Class<?> clientClass) {
    if (!iface.isInterface() || (clientClass != null && !iface.isAssignableFrom(clientClass))) {
      throw new IllegalArgumentException(
          param
              + ": "
              + iface.getName()
              + " (expected: an interface "
              + (clientClass == null ? "the client" : clientClass.getName())
              + " implements)");
    }
  }
}
