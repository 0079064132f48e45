package io.thriftnio.core.util.internal;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The route from the library's internal code to what the call contexts keep out of their API. The
 * context classes install their accessors when they are initialized (before any context exists);
 * the internal code calls through them. This package names no API type, hence the {@code Object}s:
 * a {@code ClientCallContext} for the client's setter, a {@code ServerCallContext} for the
 * server's. Also the thread-local that says which server call the current thread runs. Not an API.
 */
public final class ContextAccess {
  private static volatile BiConsumer<Object, Map<String, String>> responseHeaders;
  private static volatile ServerContexts serverContexts;

  /** The server call the current thread's processor runs; {@code null} between calls. */
  private static final ThreadLocal<Supplier<?>> SERVER_CALL = new ThreadLocal<>();

  /**
   * What the server's engine does to a {@code ServerCallContext} beyond its API: creates it, and
   * keeps its deadline, its failure and its request's bytes.
   */
  public interface ServerContexts {
    /**
     * A new context.
     *
     * @param arguments the request's bytes, readable by {@code argumentHeaders()} until {@link
     *     #argumentsRead}
     * @return the {@code ServerCallContext}
     */
    Object create(
        CallConnection<?> connection,
        long connectionId,
        long receivedAtNanos,
        long queuedNanos,
        String methodName,
        int seqId,
        byte messageType,
        TProtocolFactory protocolFactory,
        Map<String, String> headers,
        ByteBuffer arguments);

    /** Sets the call's deadline ({@link System#nanoTime()} value). */
    void deadlineNanos(Object context, long nanos);

    /** Records why the call failed, unless a cause closer to it was recorded first. */
    void failed(Object context, Throwable cause);

    /** The processor is about to read the request: its bytes are no longer the context's. */
    void argumentsRead(Object context);
  }

  private ContextAccess() {}

  /** Installed once by the client's context class. */
  public static void install(BiConsumer<Object, Map<String, String>> setter) {
    responseHeaders = setter;
  }

  /** Installed once by the server's context class. */
  public static void install(ServerContexts contexts) {
    serverContexts = contexts;
  }

  /**
   * Records the reply's headers on {@code context}, a {@code ClientCallContext}.
   *
   * @param context the call's context
   * @param headers the reply's headers, read-only
   */
  public static void responseHeaders(Object context, Map<String, String> headers) {
    responseHeaders.accept(context, headers);
  }

  /**
   * The server context's accessor; the caller has initialized {@code ServerCallContext} first (its
   * static initializer installs it).
   */
  public static ServerContexts serverContexts() {
    return serverContexts;
  }

  /**
   * The server call the current thread runs, whose {@code get()} yields its {@code
   * ServerCallContext} (created when first asked); {@code null} if none.
   */
  public static Supplier<?> serverCall() {
    return SERVER_CALL.get();
  }

  /**
   * Makes {@code call} the current thread's server call.
   *
   * @param call the call, or {@code null} for none
   */
  public static void serverCall(Supplier<?> call) {
    SERVER_CALL.set(call);
  }
}
