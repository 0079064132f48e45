package io.thriftnio.core;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asynchronous calls through a generated Thrift {@code Client} over any {@link ThriftChannel}.
 *
 * <p>A generated synchronous client already knows how to encode a call ({@code send_echo}) and
 * decode its reply ({@code recv_echo}). This bridge runs the first into a buffer, hands the buffer
 * to the channel, and runs the second on the response, so no {@code TAsyncClientManager} (with its
 * single selector thread and one call at a time) is involved. Decoding and callbacks run on the
 * executor given here, never on the channel's IO thread.
 *
 * <p>Two shapes:
 *
 * <pre>{@code
 * AsyncCaller<BenchService.Client> caller =
 *     AsyncClients.caller(channel, BenchService.Client::new, new TCompactProtocol.Factory(), executor);
 * CompletableFuture<ByteBuffer> f = caller.call(c -> c.send_echo(payload), BenchService.Client::recv_echo);
 *
 * BenchService.AsyncIface iface = AsyncClients.asyncIface(BenchService.AsyncIface.class,
 *     channel, BenchService.Client::new, new TCompactProtocol.Factory(), executor);
 * iface.echo(payload, callback);
 * }</pre>
 */
public final class AsyncClients {

  private static final Logger log = LoggerFactory.getLogger(AsyncClients.class);

  private AsyncClients() {}

  /** Encodes one call on a generated client: for example {@code c -> c.send_echo(payload)}. */
  @FunctionalInterface
  public interface Send<C> {
    /** Writes the request through {@code client}'s output protocol. */
    void send(C client) throws TException;
  }

  /** Decodes one reply on a generated client: for example {@code BenchService.Client::recv_echo}. */
  @FunctionalInterface
  public interface Receive<C, R> {
    /** Reads the reply through {@code client}'s input protocol. */
    R receive(C client) throws TException;
  }

  /**
   * Creates a caller.
   *
   * @param channel carries the messages
   * @param clientFactory the generated client's two-protocol constructor, {@code
   *     BenchService.Client::new}
   * @param protocolFactory the protocol the server speaks
   * @param executor runs decoding and completes the futures; never the channel's IO thread unless
   *     the caller passes a direct executor on purpose
   * @param <C> the generated client type
   * @return the caller
   */
  public static <C extends TServiceClient> AsyncCaller<C> caller(
      ThriftChannel channel,
      BiFunction<TProtocol, TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    return new AsyncCaller<>(channel, clientFactory, protocolFactory, executor);
  }

  /**
   * A proxy implementing a generated {@code AsyncIface} over a channel. Each method encodes with
   * the generated client's {@code send_x}, and decodes with {@code recv_x}; oneway methods (no
   * {@code recv_x}) complete their callback with {@code null} once written. Callbacks run on {@code
   * executor}.
   *
   * @param asyncIface the generated interface, {@code BenchService.AsyncIface.class}
   * @param channel carries the messages
   * @param clientFactory the generated client's two-protocol constructor, {@code
   *     BenchService.Client::new}
   * @param protocolFactory the protocol the server speaks
   * @param executor runs decoding and callbacks
   * @param <A> the async interface type
   * @param <C> the generated client type
   * @return the proxy
   * @throws IllegalArgumentException if {@code asyncIface} is not an interface, or a method has no
   *     matching {@code send_x} on the client
   */
  public static <A, C extends TServiceClient> A asyncIface(
      Class<A> asyncIface,
      ThriftChannel channel,
      BiFunction<TProtocol, TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    AsyncCaller<C> caller = caller(channel, clientFactory, protocolFactory, executor);
    return ifaceProxy(asyncIface, caller);
  }

  static <A, C extends TServiceClient> A ifaceProxy(Class<A> asyncIface, AsyncCaller<C> caller) {
    if (!asyncIface.isInterface()) {
      throw new IllegalArgumentException("asyncIface: " + asyncIface + " (expected: an interface)");
    }
    Map<Method, MethodPlan> plans = new ConcurrentHashMap<>();
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return objectMethod(proxy, method, args, asyncIface);
          }
          MethodPlan plan = plans.computeIfAbsent(method, caller::plan);
          plan.invoke(caller, args);
          return null;
        };
    // Validate every method now, so a mismatched client fails at creation, not at first call.
    for (Method m : asyncIface.getMethods()) {
      plans.put(m, caller.plan(m));
    }
    Object proxy =
        Proxy.newProxyInstance(asyncIface.getClassLoader(), new Class<?>[] {asyncIface}, handler);
    return asyncIface.cast(proxy);
  }

  private static Object objectMethod(Object proxy, Method method, Object[] args, Class<?> iface) {
    switch (method.getName()) {
      case "equals":
        return proxy == args[0];
      case "hashCode":
        return System.identityHashCode(proxy);
      default:
        return "AsyncClients proxy for " + iface.getName();
    }
  }

  /**
   * Runs calls through a generated client over a channel; see {@link AsyncClients}. Thread-safe:
   * each call uses its own client instance and buffers.
   *
   * @param <C> the generated client type
   */
  public static final class AsyncCaller<C extends TServiceClient> {
    private final ThriftChannel channel;
    private final BiFunction<TProtocol, TProtocol, C> clientFactory;
    private final TProtocolFactory protocolFactory;
    private final Executor executor;
    private final TConfiguration configuration = new TConfiguration();

    AsyncCaller(
        ThriftChannel channel,
        BiFunction<TProtocol, TProtocol, C> clientFactory,
        TProtocolFactory protocolFactory,
        Executor executor) {
      this.channel = Objects.requireNonNull(channel, "channel");
      this.clientFactory = Objects.requireNonNull(clientFactory, "clientFactory");
      this.protocolFactory = Objects.requireNonNull(protocolFactory, "protocolFactory");
      this.executor = Objects.requireNonNull(executor, "executor");
    }

    /**
     * Calls a two-way method.
     *
     * @param send encodes the request, e.g. {@code c -> c.send_echo(payload)}
     * @param receive decodes the reply, e.g. {@code BenchService.Client::recv_echo}
     * @param <R> the result type
     * @return completes, on the executor, with the result or with the exception {@code recv_x}
     *     threw (a declared IDL exception, a {@code TApplicationException}) or the channel's
     *     failure
     */
    public <R> CompletableFuture<R> call(Send<C> send, Receive<C, R> receive) {
      Exchange<C> ex;
      try {
        ex = encode(send);
      } catch (Throwable t) {
        return failedOn(t);
      }
      CompletableFuture<R> result = new CompletableFuture<>();
      channel
          .exchange(ex.request)
          .whenCompleteAsync(
              (response, failure) -> {
                if (failure != null) {
                  result.completeExceptionally(unwrap(failure));
                  return;
                }
                try {
                  ex.input.reset(response);
                  result.complete(receive.receive(ex.client));
                } catch (Throwable t) {
                  result.completeExceptionally(t);
                }
              },
              executor);
      return result;
    }

    /**
     * Sends a oneway method.
     *
     * @param send encodes the request, e.g. {@code c -> c.send_fire(payload)}
     * @return completes, on the executor, once the message is written
     */
    public CompletableFuture<Void> callOneway(Send<C> send) {
      Exchange<C> ex;
      try {
        ex = encode(send);
      } catch (Throwable t) {
        return failedOn(t);
      }
      CompletableFuture<Void> result = new CompletableFuture<>();
      channel
          .send(ex.request)
          .whenCompleteAsync(
              (ok, failure) -> {
                if (failure != null) {
                  result.completeExceptionally(unwrap(failure));
                } else {
                  result.complete(null);
                }
              },
              executor);
      return result;
    }

    private <T> CompletableFuture<T> failedOn(Throwable t) {
      CompletableFuture<T> f = new CompletableFuture<>();
      executor.execute(() -> f.completeExceptionally(t));
      return f;
    }

    private Exchange<C> encode(Send<C> send) throws TException {
      FrameOutputTransport output = new FrameOutputTransport(configuration);
      FrameInputTransport input = new FrameInputTransport(configuration);
      C client =
          clientFactory.apply(protocolFactory.getProtocol(input), protocolFactory.getProtocol(output));
      send.send(client);
      return new Exchange<>(client, input, output.payload());
    }

    MethodPlan plan(Method asyncMethod) {
      Class<?>[] params = asyncMethod.getParameterTypes();
      if (params.length == 0 || params[params.length - 1] != AsyncMethodCallback.class) {
        throw new IllegalArgumentException(
            asyncMethod + ": (expected: last parameter AsyncMethodCallback)");
      }
      Class<?>[] argTypes = Arrays.copyOf(params, params.length - 1);
      Class<?> clientClass = sampleClientClass();
      Method sendMethod;
      try {
        sendMethod = clientClass.getMethod("send_" + asyncMethod.getName(), argTypes);
      } catch (NoSuchMethodException e) {
        throw new IllegalArgumentException(
            asyncMethod.getName()
                + ": no send_"
                + asyncMethod.getName()
                + Arrays.toString(argTypes)
                + " on "
                + clientClass.getName(),
            e);
      }
      Method recvMethod;
      try {
        recvMethod = clientClass.getMethod("recv_" + asyncMethod.getName());
      } catch (NoSuchMethodException oneway) {
        recvMethod = null;
      }
      return new MethodPlan(sendMethod, recvMethod);
    }

    private Class<?> sampleClientClass() {
      try {
        FrameInputTransport t = new FrameInputTransport(configuration);
        return clientFactory
            .apply(protocolFactory.getProtocol(t), protocolFactory.getProtocol(t))
            .getClass();
      } catch (TException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static final class Exchange<C> {
    final C client;
    final FrameInputTransport input;
    final ByteBuffer request;

    Exchange(C client, FrameInputTransport input, ByteBuffer request) {
      this.client = client;
      this.input = input;
      this.request = request;
    }
  }

  static final class MethodPlan {
    private final Method send;
    private final Method receive;

    MethodPlan(Method send, Method receive) {
      this.send = send;
      this.receive = receive;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    void invoke(AsyncCaller<?> caller, Object[] args) {
      AsyncMethodCallback<Object> callback = (AsyncMethodCallback<Object>) args[args.length - 1];
      Object[] sendArgs = Arrays.copyOf(args, args.length - 1);
      Send sendStep = client -> invokeClient(send, client, sendArgs);
      CompletableFuture<?> future =
          receive == null
              ? caller.callOneway(sendStep)
              : caller.call(sendStep, client -> invokeClient(receive, client, new Object[0]));
      // Async, on the caller's executor: the future may be complete already (a fast reply, a
      // failed encode), and whenComplete would then run the callback on the proxy caller's thread.
      future.whenCompleteAsync(
          (result, failure) -> {
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
          },
          caller.executor);
    }

    private static Object invokeClient(Method m, Object client, Object[] args) throws TException {
      try {
        return m.invoke(client, args);
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
        throw new TException(cause);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof java.util.concurrent.CompletionException
            || t instanceof java.util.concurrent.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
