package io.thriftnio.core;

import static io.thriftnio.core.AsyncClients.execute;
import static io.thriftnio.core.AsyncClients.unwrap;

import io.thriftnio.core.AsyncClients.Send;
import io.thriftnio.core.util.internal.Continuations;
import io.thriftnio.core.util.internal.FutureMethods;
import io.thriftnio.core.util.internal.Reflection;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.async.AsyncMethodCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code AsyncIface} and {@code FutureIface} proxies of {@link AsyncClients}: each interface
 * method is planned once, against the generated client's {@code send_x} and {@code recv_x}, and
 * called through an {@link AsyncCaller}.
 */
final class AsyncProxies {
  private static final Logger log = LoggerFactory.getLogger(AsyncClients.class);

  private AsyncProxies() {}

  static <A, C extends TServiceClient> A ifaceProxy(Class<A> asyncIface, AsyncCaller<C> caller) {
    if (!asyncIface.isInterface()) {
      throw new IllegalArgumentException("asyncIface: " + asyncIface + " (expected: an interface)");
    }
    Map<Method, MethodPlan> plans = new ConcurrentHashMap<>();
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return Reflection.objectMethod(
                proxy, method, args, "AsyncClients proxy for " + asyncIface.getName());
          }
          MethodPlan plan = plans.computeIfAbsent(method, m -> plan(m, caller.sampleClientClass()));
          plan.invoke(caller, args);
          return null;
        };
    // Validate every method now, so a mismatched client fails at creation, not at first call.
    for (Method m : asyncIface.getMethods()) {
      plans.put(m, plan(m, caller.sampleClientClass()));
    }
    Object proxy =
        Proxy.newProxyInstance(asyncIface.getClassLoader(), new Class<?>[] {asyncIface}, handler);
    return asyncIface.cast(proxy);
  }

  static <F, C extends TServiceClient> F futureProxy(Class<F> futureIface, AsyncCaller<C> caller) {
    Class<?> clientClass = caller.sampleClientClass();
    // Every method planned and checked now: a mismatch fails here, naming the method.
    Map<Method, MethodPlan> plans = new HashMap<>();
    for (Method m : FutureMethods.of("futureIface", futureIface)) {
      MethodPlan plan =
          plan("futureIface: " + FutureMethods.describe(m), m, m.getParameterTypes(), clientClass);
      FutureMethods.check(
          "futureIface",
          m,
          plan.receive == null ? void.class : plan.receive.getGenericReturnType());
      plans.put(m, plan);
    }
    InvocationHandler handler =
        (proxy, method, args) -> {
          MethodPlan plan = plans.get(method);
          return plan != null
              ? plan.start(caller, args == null ? new Object[0] : args)
              : Reflection.objectMethod(
                  proxy, method, args, "AsyncClients proxy for " + futureIface.getName());
        };
    return futureIface.cast(
        Proxy.newProxyInstance(
            futureIface.getClassLoader(), new Class<?>[] {futureIface}, handler));
  }

  static MethodPlan plan(Method asyncMethod, Class<?> clientClass) {
    Class<?>[] params = asyncMethod.getParameterTypes();
    if (params.length == 0 || params[params.length - 1] != AsyncMethodCallback.class) {
      throw new IllegalArgumentException(
          asyncMethod + ": (expected: last parameter AsyncMethodCallback)");
    }
    return plan(
        asyncMethod.getName(), asyncMethod, Arrays.copyOf(params, params.length - 1), clientClass);
  }

  /** {@code send_x(argTypes)} and {@code recv_x()} (none for oneway); {@code what} for messages. */
  private static MethodPlan plan(
      String what, Method method, Class<?>[] argTypes, Class<?> clientClass) {
    Method sendMethod;
    try {
      sendMethod = clientClass.getMethod("send_" + method.getName(), argTypes);
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(
          what
              + ": no send_"
              + method.getName()
              + Arrays.toString(argTypes)
              + " on "
              + clientClass.getName(),
          e);
    }
    Method recvMethod;
    try {
      recvMethod = clientClass.getMethod("recv_" + method.getName());
    } catch (NoSuchMethodException oneway) {
      recvMethod = null;
    }
    return new MethodPlan(sendMethod, recvMethod);
  }

  static final class MethodPlan {
    private final Method send;
    private final Method receive;

    MethodPlan(Method send, Method receive) {
      this.send = send;
      this.receive = receive;
    }

    /** Sends with {@code sendArgs}; completes on the caller's executor. Never throws. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    CompletableFuture<?> start(AsyncCaller<?> caller, Object[] sendArgs) {
      Send sendStep = client -> Reflection.invoke(send, client, sendArgs);
      return receive == null
          ? caller.callOneway(sendStep)
          : caller.call(sendStep, client -> Reflection.invoke(receive, client, new Object[0]));
    }

    @SuppressWarnings("unchecked")
    void invoke(AsyncCaller<?> caller, Object[] args) {
      AsyncMethodCallback<Object> callback = (AsyncMethodCallback<Object>) args[args.length - 1];
      CompletableFuture<?> future = start(caller, Arrays.copyOf(args, args.length - 1));
      // The future completes on the caller's executor already: the callback runs there, without a
      // second hop. Only a future complete before whenComplete returns (a fast reply, a failed
      // encode) would run it on the proxy caller's thread: that one is handed to the executor.
      Thread invoking = Thread.currentThread();
      AtomicBoolean registered = new AtomicBoolean();
      future.whenComplete(
          (result, failure) -> {
            Runnable deliver =
                () -> {
                  try {
                    if (failure == null) {
                      callback.onComplete(result);
                    } else {
                      Throwable cause = unwrap(failure);
                      callback.onError(
                          cause instanceof Exception ? (Exception) cause : new TException(cause));
                    }
                  } catch (RuntimeException e) {
                    log.warn("AsyncMethodCallback for {} threw", send.getName().substring(5), e);
                  }
                };
            if (!registered.get() && Thread.currentThread() == invoking) {
              // Complete already: handed over inside the call's attach scopes, kept by the future.
              execute(caller.executor, Continuations.wrap(deliver, future));
            } else {
              deliver.run();
            }
          });
      registered.set(true);
    }
  }
}
