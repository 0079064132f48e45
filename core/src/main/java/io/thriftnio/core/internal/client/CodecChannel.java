package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.ArgumentHeaders;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.IoThreadExchange;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.ReplyEvent;
import io.thriftnio.core.wire.SaslClientCodec;
import io.thriftnio.core.wire.SaslLayer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import javax.security.sasl.SaslException;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;

/**
 * A {@link ThriftChannel} whose calls are core's {@link PipelinedCalls} and whose wire is core's
 * {@link ClientCodec}: framed, unframed, THeader, HTTP or SASL, per its options. It puts the
 * codec's head before each request ({@link #send}: one write, the request not copied) and takes
 * what the IO adapter's decoder found in the replies ({@link #onReply}, {@link #onReplyEvent}); the
 * adapter reports how its connection ends ({@link #connectionEnded}). One channel class per IO
 * adapter extends it, for every wire transport. Not part of the API.
 *
 * <pre>
 *  exchange(a) send(b, oneway) exchange(c)
 *     -&gt; head(a) a | head(b) b | head(c) c        in call order, each head and message one write
 *     &lt;- A | (b's HTTP answer) | C                  A completes a, C completes c; a framed or
 *                                                 unframed server sends nothing for b
 * </pre>
 */
public abstract class CodecChannel implements ThriftChannel, CallLink, IoThreadExchange {

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

  /** The connection's wire: heads written, replies read. */
  protected final ClientCodec codec;

  /** A SASL connection's negotiation; {@code null} on every other wire kind. */
  private final SaslHandshake sasl;

  /** The security layer {@link #sasl} completes; {@code null} with it. */
  private final SaslLayer saslLayer;

  /**
   * @param address the server
   * @param options the connection's settings; its {@code transport} picks the wire
   * @param timer runs the per-call timers
   * @param onClose runs once, after the channel has closed
   */
  protected CodecChannel(
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
    String peer = ClientErrors.peer(address);
    if (options.wireKind() == WireKind.SASL) {
      SaslClientCodec saslCodec = ClientCodec.sasl(options, address, peer);
      this.codec = saslCodec;
      this.saslLayer = saslCodec.saslLayer();
      this.sasl = new SaslHandshake(options.sasl().orElseThrow(), address, this::sendNegotiation);
    } else {
      this.codec = ClientCodec.of(options, address, peer);
      this.saslLayer = null;
      this.sasl = null;
    }
  }

  /**
   * Runs a SASL connection's negotiation on the calling thread (never an IO thread: the mechanism
   * may block), before any call: the channel is usable once it returns. Wraps and unwraps frames
   * from then on if the negotiated quality of protection says so.
   *
   * @throws TTransportException a {@code SaslNegotiationException} if the negotiation failed; the
   *     caller closes the channel
   */
  public final void negotiateSasl() throws TTransportException {
    saslLayer.negotiated(sasl.negotiate());
  }

  private void sendNegotiation(ByteBuffer message) {
    execute(
        () -> {
          send(
              new byte[0],
              message,
              failure -> {
                if (failure != null) {
                  closeConnection(); // the negotiation sees the connection end
                }
              });
          flush();
        });
  }

  /**
   * Writes {@code head}, then {@code payload}, in one write and without copying {@code payload};
   * {@code done} gets {@code null} once written, or the failure.
   */
  protected abstract void send(byte[] head, ByteBuffer payload, Consumer<Throwable> done);

  @Override
  public final void write(ByteBuffer payload, boolean oneway, Consumer<Throwable> done) {
    ByteBuffer out;
    byte[] head;
    try {
      out = codec.wrap(payload);
      head = codec.head(out, oneway);
    } catch (SaslException | TException e) {
      done.accept(e); // a failed write closes the connection: the mechanism's numbering moved on
      return;
    }
    send(head, out, done);
  }

  @Override
  public final void write(
      ByteBuffer payload,
      boolean oneway,
      Map<String, String> headers,
      int wireSeqId,
      long timeoutMillis,
      Consumer<Throwable> done) {
    byte[] head;
    try {
      head = codec.head(payload, oneway, headers, wireSeqId, timeoutMillis);
    } catch (TException e) {
      // Checked by codec.refusal() before the call was queued; a header section over 256 KiB
      // remains.
      done.accept(e);
      return;
    }
    send(head, payload, done);
  }

  /**
   * A reply's payload, for the call it answers; the channel keeps it. Called on the reading thread
   * right after the codec's step that found it: its headers and header sequence id are read there.
   */
  protected final void onReply(ByteBuffer payload) {
    if (sasl != null && !saslLayer.complete()) {
      sasl.onMessage(payload);
    } else if (codec.carriesHeaders()) {
      calls.onResponse(payload, codec.replySeqId(), codec.replyHeaders());
    } else {
      calls.onResponse(payload);
    }
  }

  /** What a reply says besides its payload (see {@link ReplyEvent}). */
  protected final void onReplyEvent(ReplyEvent event) {
    if (event.callFailure() != null) {
      calls.onFailedResponse(event.callFailure());
    }
    if (event.connectionFailure() != null) {
      connectionEnded(event.connectionFailure());
    } else if (event.closeReason() != null) {
      calls.close(event.closeReason(), null);
    }
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

  /** Whether the connection is open, as the IO library sees it. */
  protected abstract boolean connectionOpen();

  /**
   * The connection ended: in order ({@code null}), or with {@code cause}. A frame over {@code
   * maxFrameSize} fails the waiting calls with {@code CORRUPTED_DATA}; the text is the same
   * whichever library reported it. A {@code TTransportException} (an invalid unframed reply, say)
   * gives the waiting calls its type and text.
   */
  protected final void connectionEnded(Throwable cause) {
    if (sasl != null) {
      sasl.onEnded(cause); // first: a negotiation waiting sees the connection end
    }
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
    TException refused = codec.refusal(request, headers == null ? Map.of() : headers.request());
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
    TException refused = codec.refusal(request, headers == null ? Map.of() : headers.request());
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
