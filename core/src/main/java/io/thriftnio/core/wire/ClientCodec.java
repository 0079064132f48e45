package io.thriftnio.core.wire;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import javax.security.sasl.SaslException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;

/**
 * One client connection's wire, the object a client channel or transport keeps per connection: the
 * bytes that go before each request ({@link #head}) and the replies found in the bytes read ({@link
 * #next}). One implementation per {@link WireKind}, chosen once by {@link #of}:
 *
 * <pre>
 * kind        head before a request of n bytes            replies
 * FRAMED      its 4-byte length                          frames (MESSAGE: a slice)
 * UNFRAMED    nothing                                    messages, each walked to its end
 * HTTP        POST ... Content-Length: n \r\n\r\n        responses: MESSAGE (200), FAILED (other
 *                                                        statuses), SKIPPED (a oneway call's)
 * HEADER      length, 0FFF, flags, seqid, header         THeader frames, each with its info headers
 *             section (protocol id, info headers)        and the sequence id of its request's header
 * SASL        its 4-byte length, after {@link #wrap}     the negotiation's messages, whole; then
 *                                                        frames, unwrapped ({@link SaslClientCodec})
 * </pre>
 *
 * <p>THeader and HTTP carry headers: the request's ({@link #head}, with {@value
 * ServerCallContext#CLIENT_TIMEOUT_HEADER}) and the reply's ({@link #replyHeaders()}). A THeader
 * request says that the client matches replies by the header's sequence id ({@link
 * #matchesBySeqId()}), so a server may answer out of order.
 *
 * <p>A refusal (a frame over {@code maxFrameSize}, an invalid unframed reply, a malformed HTTP
 * response) ends the connection: {@link Refusal#exception()} is what the waiting calls fail with.
 * Threads: {@link #head} and {@link #wrap} on the writing thread, in write order; {@link #next} and
 * {@link #endOfStream} on the reading thread.
 */
public interface ClientCodec {

  /**
   * The codec of one connection, for its options' wire kind.
   *
   * @param options its {@code wireKind}, {@code maxFrameSize} and {@code httpPath} apply
   * @param address the server, as the caller named it
   * @param peer the server as every message of this library writes it
   */
  static ClientCodec of(ClientOptions options, InetSocketAddress address, String peer) {
    int max = options.maxFrameSize();
    return switch (options.wireKind()) {
      case FRAMED -> new FramedClientCodec(max, address);
      case UNFRAMED -> new UnframedClientCodec(max, peer);
      case HTTP -> new HttpClientCodec(max, address, peer, options.httpPath());
      case HEADER -> new THeaderClientCodec(max, address, peer);
      case SASL -> sasl(options, address, peer);
    };
  }

  /**
   * The codec of one {@link WireKind#SASL} connection, whose negotiation its channel runs over the
   * codec's {@link SaslClientCodec#saslLayer()}.
   *
   * @param options its {@code maxFrameSize} and {@code sasl} settings apply
   * @param address the server
   * @param peer the server as every message of this library writes it
   */
  static SaslClientCodec sasl(ClientOptions options, InetSocketAddress address, String peer) {
    return new SaslClientCodec(
        options.maxFrameSize(), address, peer, options.sasl().orElseThrow().mechanism());
  }

  /**
   * A codec of framed replies, for a connection assembled by the user.
   *
   * @param maxFrameSize the largest reply accepted, in bytes
   * @param peer the server, for errors; may be {@code null}
   */
  static ClientCodec framed(int maxFrameSize, SocketAddress peer) {
    return new FramedClientCodec(maxFrameSize, peer);
  }

  /** The connection's wire kind. */
  WireKind wireKind();

  /**
   * Whether the wire carries headers (THeader, HTTP): request headers are sent, replies read. The
   * other kinds ignore the headers given to {@link #head} and have no {@link #replyHeaders()}.
   */
  default boolean carriesHeaders() {
    return false;
  }

  /**
   * Whether replies are matched to requests by the sequence id of their header ({@link
   * #replySeqId()}) rather than by their order: THeader, whose requests say so in their flags.
   */
  default boolean matchesBySeqId() {
    return false;
  }

  /**
   * Why a request cannot go out on this connection, or {@code null} if it can: checked on the
   * caller's thread before anything is queued, so the call fails alone and nothing is sent.
   * THeader: a message whose protocol it cannot name (JSON, non-strict binary); HTTP: headers that
   * would break the request (CR or LF, a field the client writes itself).
   *
   * @param message the request message, from position to limit; not moved
   * @param headers the request's headers
   */
  default TException refusal(ByteBuffer message, Map<String, String> headers) {
    return null;
  }

  /**
   * The request message as it goes on the wire: itself, or wrapped by a SASL connection's security
   * layer (call in write order: the mechanism numbers what it wraps).
   *
   * @throws SaslException if the mechanism cannot wrap it
   * @throws TTransportException {@code CORRUPTED_DATA} if the wrapped message is over {@code
   *     maxFrameSize}
   */
  default ByteBuffer wrap(ByteBuffer message) throws SaslException, TTransportException {
    return message;
  }

  /**
   * The bytes to send before a request; call once per request, in write order, after {@link
   * #refusal} found nothing wrong.
   *
   * @param message the request message as it goes on the wire ({@link #wrap}), from position to
   *     limit; not moved
   * @param oneway whether the request is a oneway call (an HTTP server answers it anyway)
   * @param headers the request's headers; sent on THeader (info headers) and HTTP (fields)
   * @param seqId the sequence id of a THeader request's header: the connection's own
   * @param timeoutMillis how long the client waits for the reply, sent as {@value
   *     ServerCallContext#CLIENT_TIMEOUT_HEADER} where headers are carried; 0 for none
   * @return the head: a length prefix, an HTTP or THeader head, or no bytes; the caller owns it
   * @throws TProtocolException if the message or the headers cannot be sent (see {@link #refusal})
   */
  byte[] head(
      ByteBuffer message,
      boolean oneway,
      Map<String, String> headers,
      int seqId,
      long timeoutMillis)
      throws TProtocolException;

  /**
   * The bytes to send before a request without headers: {@link #head(ByteBuffer, boolean, Map, int,
   * long)} with none, sequence id 0 and no timeout.
   */
  default byte[] head(ByteBuffer message, boolean oneway) throws TProtocolException {
    return head(message, oneway, Map.of(), 0, 0);
  }

  /**
   * The headers of the reply the last step delivered ({@code MESSAGE}): THeader info headers, or
   * HTTP header fields with lower-cased names; empty for a wire without headers. Read on the
   * reading thread, right after the step.
   */
  default Map<String, String> replyHeaders() {
    return Map.of();
  }

  /**
   * The sequence id of the header of the reply the last step delivered, on THeader ({@link
   * #matchesBySeqId()}): the request's, echoed by the server; 0 elsewhere. Read right after the
   * step.
   */
  default int replySeqId() {
    return 0;
  }

  /**
   * Decodes the next step from {@code start}: a reply, or what else the bytes hold.
   *
   * @return the event; its details in {@link #decoded()}
   */
  WireEvent next(ByteSource in, int start, int available);

  /**
   * The connection ended with {@code available} bytes not consumed: an HTTP body that runs to the
   * end of the stream is delivered ({@code MESSAGE}); a reply cut short refuses, saying where.
   */
  WireEvent endOfStream(ByteSource in, int start, int available);

  /** The details of the last step. */
  Decoded decoded();

  /** Whether nothing more is read: a reply was refused, or the server ends the connection. */
  boolean rejected();
}
