package io.thriftnio.core.wire;

import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.util.internal.Framing;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * How the reply to one request leaves: what the request's wire kind wraps around the reply message.
 * A decoder hands one out with every request ({@link Decoded#envelope()}); the call path keeps it
 * with the call and, once the call is answered, asks it to {@link #encode} the reply. A kind whose
 * requests carry per-message metadata (HTTP's keep-alive and content type) makes one envelope per
 * request; others share one ({@link #FRAMED}, {@link #UNFRAMED}).
 *
 * <pre>
 * reply frame from the call path:   | length | reply message |      (prefix reserved and patched)
 * FRAMED   sends                    | length | reply message |      as it is: one buffer
 * UNFRAMED sends                             | reply message |      the prefix skipped
 * HTTP     sends   | HTTP/1.1 200 ... \r\n\r\n | reply message |    a head, then the message
 * THeader  sends   | length | 0FFF ... header | reply message |   the message possibly compressed
 * </pre>
 *
 * <p>An envelope also tells the call path what the request's kind says about its message beside the
 * bytes: the protocol it is in when the kind names one ({@link #protocol()}: THeader's protocol
 * id), and the headers it came with ({@link #headers()}).
 */
public abstract class Envelope {

  /** Where an envelope puts the bytes of a reply. */
  @FunctionalInterface
  public interface Outbound {
    /**
     * The reply, as it leaves: {@code head}, then {@code body}, in one write.
     *
     * @param head bytes before the body, or {@code null}
     * @param body the body, or {@code null}; often the reply frame itself, its position moved
     */
    void send(ByteBuffer head, ByteBuffer body);
  }

  /** A framed request's reply: the frame as it is, its length prefix included. */
  public static final Envelope FRAMED =
      new Envelope() {
        @Override
        public void encode(ByteBuffer frame, boolean unreadable, Outbound out) {
          if (frame != null) {
            out.send(null, frame);
          }
        }

        @Override
        public String toString() {
          return "FRAMED";
        }
      };

  /** An unframed request's reply: the message without the length prefix. */
  public static final Envelope UNFRAMED =
      new Envelope() {
        @Override
        public void encode(ByteBuffer frame, boolean unreadable, Outbound out) {
          if (frame != null) {
            out.send(null, message(frame));
          }
        }

        @Override
        public String toString() {
          return "UNFRAMED";
        }
      };

  /** For subclasses. */
  protected Envelope() {}

  /**
   * Turns the outcome of the request's call into the bytes that leave. Called once per request, on
   * the thread that completes its call.
   *
   * @param frame the reply frame, its 4-byte length prefix reserved and patched, from position to
   *     limit; or {@code null} when the call has no reply (oneway), or the request's message could
   *     not be read
   * @param unreadable whether the request's message could not be read: the connection closes after
   *     whatever this sends
   * @param out receives the bytes to send; not called when nothing is sent
   */
  public abstract void encode(ByteBuffer frame, boolean unreadable, Outbound out);

  /**
   * The reply's own headers ({@code ServerCallContext.setResponseHeader}), validated when set, in
   * the order they were set: given once by the call path, on the thread that ends the call and
   * before {@link #encode} (the sequencer's monitor publishes them to the writer), and only when
   * there are some. A kind that carries headers sends them with the reply (THeader's info headers,
   * HTTP's header fields) and makes one envelope per request; by default they are ignored, as
   * framed and unframed connections carry none: the shared {@link #FRAMED} and {@link #UNFRAMED}
   * stay immutable, and a framed call pays nothing for the feature.
   *
   * @param headers the headers, read-only, never empty
   */
  public void responseHeaders(Map<String, String> headers) {}

  /**
   * Whether the connection closes once this reply has been sent (an HTTP request without
   * keep-alive). By default {@code false}.
   *
   * @return whether nothing after this reply is read or sent
   */
  public boolean closesConnection() {
    return false;
  }

  /**
   * Asks the envelope to tell the peer that the connection closes after this reply, when its kind
   * can say so (HTTP's {@code Connection: close}): the server closes an aged connection so without
   * a race, as the peer knows not to send on it. Called at most once, by the call path, before
   * {@link #encode}; by default the kind cannot say it ({@code false}), and nothing changes.
   *
   * @return whether the reply will say so; the connection must then close after it
   */
  public boolean closeAfterReply() {
    return false;
  }

  /**
   * Whether the request's peer reads replies in any order, matching them by an id the envelope
   * echoes (THeader's {@code SUPPORT_OUT_OF_ORDER} flag, 0x01, with its sequence id): its reply may
   * leave as soon as its call ends, ahead of earlier requests still running. By default {@code
   * false}: replies leave in request order, as every stock peer needs.
   *
   * @return whether the reply may overtake earlier ones
   */
  public boolean outOfOrder() {
    return false;
  }

  /**
   * The protocol the request's message is in, and its reply is written in, when the kind names it
   * per message (THeader's protocol id); {@code null}, the default: the server's protocol.
   *
   * @return a protocol factory, or {@code null}
   */
  public TProtocolFactory protocol() {
    return null;
  }

  /**
   * The headers the request came with (THeader's key/value info headers, HTTP's header fields),
   * read-only; by default none.
   *
   * @return the headers, in the order they arrived; empty if the kind carries none
   */
  public Map<String, String> headers() {
    return Map.of();
  }

  /**
   * Who the connection authenticated as, for kinds that authenticate it (SASL), once they have;
   * {@code null}, the default, for the others.
   *
   * @return the identity, or {@code null}
   */
  public SaslIdentity saslIdentity() {
    return null;
  }

  /**
   * The reply message of a frame: its position moved past the length prefix.
   *
   * @param frame a reply frame, or {@code null}
   * @return the same buffer, or {@code null}
   */
  protected static ByteBuffer message(ByteBuffer frame) {
    if (frame != null) {
      frame.position(frame.position() + Framing.HEADER_SIZE);
    }
    return frame;
  }
}
