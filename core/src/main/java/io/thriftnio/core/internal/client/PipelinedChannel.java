package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.util.internal.ArgumentHeaders;
import io.thriftnio.core.util.internal.IoThreadExchange;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;

/**
 * A {@link ThriftChannel} whose calls are core's {@link PipelinedCalls}: an IO adapter extends it,
 * moves the bytes ({@link CallLink}) and reports what its connection reads ({@link #calls}{@code
 * .onResponse}) and how it ends ({@link #connectionEnded}). Not part of the API.
 */
public abstract class PipelinedChannel implements ThriftChannel, CallLink, IoThreadExchange {

  /** The server, as the caller named it. */
  protected final InetSocketAddress address;

  /** The call table. */
  protected final PipelinedCalls calls;

  private final Duration requestTimeout;
  private final String shape;
  private final Executor callbackExecutor;

  /** {@code null} without interceptors. */
  private final ClientInterception interception;

  private final boolean argumentHeaders;

  /**
   * @param address the server
   * @param options the connection's settings
   * @param timer runs the per-call timers
   * @param onClose runs once, after the channel has closed
   */
  protected PipelinedChannel(
      InetSocketAddress address,
      ClientOptions options,
      ScheduledExecutorService timer,
      Runnable onClose) {
    this.address = address;
    this.requestTimeout = options.callTimeout();
    this.shape = ClientErrors.shape(options);
    this.callbackExecutor = options.callbackExecutor();
    this.calls = new PipelinedCalls(address, options, timer, this);
    calls.onClose(onClose);
    this.interception = ClientInterception.of(options.interceptors());
    this.argumentHeaders = options.argumentHeaders();
  }

  /**
   * {@code request} with the call's headers in its arguments too, when the options ask for it
   * ({@code ClientOptions.argumentHeaders}).
   */
  private ByteBuffer withArgumentHeaders(ByteBuffer request, WireHeaders headers) {
    return argumentHeaders && headers != null
        ? ArgumentHeaders.write(request, headers.request())
        : request;
  }

  /** Told first when the connection ends ({@link #connectionEnded}); by default nothing. */
  protected void ending(Throwable cause) {}

  /** Whether the connection is open, as the IO library sees it. */
  protected abstract boolean connectionOpen();

  /**
   * The connection ended: in order ({@code null}), or with {@code cause}. A frame over {@code
   * maxFrameSize} fails the waiting calls with {@code CORRUPTED_DATA}; the text is the same
   * whichever library reported it. A {@code TTransportException} (an invalid unframed reply, say)
   * gives the waiting calls its type and text.
   */
  protected final void connectionEnded(Throwable cause) {
    ending(cause);
    if (cause == null) {
      calls.close(
          "closed by the peer" + ClientErrors.beforeAnyReply(calls.answeredAny() ? null : shape),
          null);
    } else if (cause instanceof FrameSizeException) {
      FrameSizeException e = ClientErrors.frameSize((FrameSizeException) cause, address);
      calls.close(ClientErrors.describe(e), e);
    } else if (cause instanceof IOException || cause instanceof TTransportException) {
      calls.close(ClientErrors.describe(cause), cause);
    } else {
      calls.close("unexpected " + cause, cause);
    }
  }

  @Override
  public final CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, requestTimeout, callbackExecutor);
  }

  @Override
  public final CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    return exchange(request, timeout, callbackExecutor);
  }

  @Override
  public final CompletableFuture<Void> send(ByteBuffer request) {
    return send(request, callbackExecutor);
  }

  /**
   * {@link #exchange(ByteBuffer)} completing on the IO or timer thread itself, for a caller that
   * hops to its own executor next ({@link io.thriftnio.core.AsyncClients}): one hop, not two.
   */
  @Override
  public final CompletableFuture<ByteBuffer> exchangeOnIoThread(ByteBuffer request) {
    return exchange(request, requestTimeout, Runnable::run);
  }

  /** {@link #send(ByteBuffer)} completing on the IO thread; see {@link #exchangeOnIoThread}. */
  @Override
  public final CompletableFuture<Void> sendOnIoThread(ByteBuffer request) {
    return send(request, Runnable::run);
  }

  /**
   * Why {@code request} cannot go out on this connection with {@code headers}, or {@code null}:
   * checked on the caller's thread, after the interceptors' {@code beforeCall}, before anything is
   * queued. By default nothing is refused.
   */
  protected TException refusal(ByteBuffer request, Map<String, String> headers) {
    return null;
  }

  private CompletableFuture<ByteBuffer> exchange(
      ByteBuffer request, Duration timeout, Executor completeOn) {
    WireHeaders headers = WireHeaders.forCall(interception != null);
    if (interception == null) {
      return exchangeChecked(withArgumentHeaders(request, headers), timeout, completeOn, headers);
    }
    return interception.exchange(
        request,
        address,
        headers,
        r -> exchangeChecked(withArgumentHeaders(r, headers), timeout, completeOn, headers));
  }

  private CompletableFuture<ByteBuffer> exchangeChecked(
      ByteBuffer request, Duration timeout, Executor completeOn, WireHeaders headers) {
    TException refused = refusal(request, headers == null ? Map.of() : headers.request());
    return refused != null
        ? CompletableFuture.failedFuture(refused)
        : calls.exchange(request, timeout, completeOn, headers);
  }

  private CompletableFuture<Void> send(ByteBuffer request, Executor completeOn) {
    WireHeaders headers = WireHeaders.forCall(interception != null);
    if (interception == null) {
      return sendChecked(withArgumentHeaders(request, headers), completeOn, headers);
    }
    return interception.send(
        request,
        address,
        headers,
        r -> sendChecked(withArgumentHeaders(r, headers), completeOn, headers));
  }

  private CompletableFuture<Void> sendChecked(
      ByteBuffer request, Executor completeOn, WireHeaders headers) {
    TException refused = refusal(request, headers == null ? Map.of() : headers.request());
    return refused != null
        ? CompletableFuture.failedFuture(refused)
        : calls.send(request, completeOn, headers);
  }

  @Override
  public final int callsInFlight() {
    return calls.pendingCalls();
  }

  @Override
  public final int abandonedCalls() {
    return calls.abandonedCalls();
  }

  @Override
  public final boolean isOpen() {
    return calls.isOpen() && connectionOpen();
  }

  @Override
  public final SocketAddress remoteAddress() {
    return address;
  }

  @Override
  public final void whenClosed(Runnable action) {
    calls.onClose(action);
  }

  /** Closes the connection; every pending call fails. Idempotent. */
  @Override
  public void close() {
    calls.close("the channel was closed", null);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + "{"
        + ClientErrors.peer(address)
        + ", pending="
        + callsInFlight()
        + (isOpen() ? "}" : ", closed}");
  }
}
