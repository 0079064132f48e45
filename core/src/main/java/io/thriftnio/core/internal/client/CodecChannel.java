package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.ReplyEvent;
import io.thriftnio.core.wire.SaslClientCodec;
import io.thriftnio.core.wire.SaslLayer;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import javax.security.sasl.SaslException;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;

/**
 * A pipelined channel whose wire is core's {@link ClientCodec}: framed, unframed or HTTP, per its
 * options. It puts the codec's head before each request ({@link #send}: one write, the request not
 * copied) and takes what the IO adapter's decoder found in the replies ({@link #onReply}, {@link
 * #onReplyEvent}). One channel class per IO adapter extends it, for every wire transport. Not part
 * of the API.
 *
 * <pre>
 *  exchange(a) send(b, oneway) exchange(c)
 *     -&gt; head(a) a | head(b) b | head(c) c        in call order, each head and message one write
 *     &lt;- A | (b's HTTP answer) | C                  A completes a, C completes c; a framed or
 *                                                 unframed server sends nothing for b
 * </pre>
 */
public abstract class CodecChannel extends PipelinedChannel {

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
    super(address, options, timer, onClose);
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

  @Override
  protected final void ending(Throwable cause) {
    if (sasl != null) {
      sasl.onEnded(cause);
    }
  }

  /**
   * Writes {@code head}, then {@code payload}, in one write and without copying {@code payload};
   * {@code done} gets {@code null} once written, or the failure.
   */
  protected abstract void send(byte[] head, ByteBuffer payload, Consumer<Throwable> done);

  @Override
  public final void write(ByteBuffer payload, Consumer<Throwable> done) {
    write(payload, false, done);
  }

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
      // Checked by refusal() before the call was queued; a header section over 256 KiB remains.
      done.accept(e);
      return;
    }
    send(head, payload, done);
  }

  @Override
  protected final TException refusal(ByteBuffer request, Map<String, String> headers) {
    return codec.refusal(request, headers);
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
}
