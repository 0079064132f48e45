package io.thriftnio.core.wire;

import io.thriftnio.core.CallHeaders;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.Framing;
import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.security.sasl.SaslException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection's wire, the object a client channel or transport keeps per connection: the
 * bytes that go before each request ({@link #head}) and the replies found in the bytes read ({@link
 * #next}), for the connection's {@link WireKind}.
 *
 * <pre>
 * transport   head(n) before a request of n bytes        replies
 * FRAMED      its 4-byte length                          frames (MESSAGE: a slice)
 * UNFRAMED    nothing                                    messages, each walked to its end
 * HTTP        POST ... Content-Length: n \r\n\r\n        responses: MESSAGE (200), FAILED (other
 *                                                        statuses), SKIPPED (a oneway call's)
 * HEADER      length, 0FFF, flags, seqid, header         THeader frames, each with its info headers
 *             section (protocol id, info headers)        and the sequence id of its request's header
 * SASL        its 4-byte length, after {@link #wrap}     the negotiation's messages, whole; then
 *                                                        frames, unwrapped ({@link #saslLayer()})
 * </pre>
 *
 * <p>THeader and HTTP carry headers: the request's ({@link #head(ByteBuffer, boolean, Map, int,
 * long)}, with {@value CallHeaders#CLIENT_TIMEOUT}) and the reply's ({@link #replyHeaders()}). A
 * THeader request says that the client matches replies by the header's sequence id ({@link
 * #matchesBySeqId()}), so a server may answer out of order.
 *
 * <p>A refusal (a frame over {@code maxFrameSize}, an invalid unframed reply, a malformed HTTP
 * response) ends the connection: {@link Refusal#exception()} is what the waiting calls fail with.
 * Threads: {@link #head} on the writing thread, in write order; {@link #next} and {@link
 * #endOfStream} on the reading thread.
 */
public final class ClientCodec {

  private static final Logger log = LoggerFactory.getLogger(ClientCodec.class);

  private static final byte[] NO_HEAD = new byte[0];
  private static final int[] NO_TRANSFORMS = new int[0];

  private final WireKind transport;
  private final Decoder decoder;
  private final HttpRequestHead httpHead;
  private final Decoded decoded = new Decoded();
  private final String peer;
  private final SaslLayer saslLayer; // null unless SASL
  private final int maxFrameSize;
  private volatile boolean rejected;
  private Map<String, String> replyHeaders = Map.of(); // the reading thread's
  private int replySeqId;

  private ClientCodec(
      WireKind transport,
      Decoder decoder,
      HttpRequestHead httpHead,
      String peer,
      SaslLayer saslLayer,
      int maxFrameSize) {
    this.transport = transport;
    this.decoder = decoder;
    this.httpHead = httpHead;
    this.peer = peer;
    this.saslLayer = saslLayer;
    this.maxFrameSize = maxFrameSize;
  }

  /**
   * The codec of one connection.
   *
   * @param options its {@code transport}, {@code maxFrameSize} and {@code httpPath} apply
   * @param address the server, as the caller named it
   * @param peer the server as every message of this library writes it
   */
  public static ClientCodec of(ClientOptions options, InetSocketAddress address, String peer) {
    int max = options.maxFrameSize();
    switch (options.wireKind()) {
      case UNFRAMED:
        return new ClientCodec(
            WireKind.UNFRAMED, UnframedDecoder.forReplies(max, peer), null, peer, null, max);
      case HTTP:
        return new ClientCodec(
            WireKind.HTTP,
            new HttpResponseDecoder(max, address, peer),
            new HttpRequestHead(address, options.httpPath()),
            peer,
            null,
            max);
      case HEADER:
        return new ClientCodec(
            WireKind.HEADER, THeaderDecoder.forReplies(max, address), null, peer, null, max);
      case SASL:
        SaslLayer layer = new SaslLayer();
        String mechanism = options.sasl().orElseThrow().mechanism();
        return new ClientCodec(
            WireKind.SASL,
            new SaslReplyDecoder(max, address, peer, mechanism, layer),
            null,
            peer,
            layer,
            max);
      default:
        return framed(max, address);
    }
  }

  /**
   * A codec of framed replies, for a connection assembled by the user.
   *
   * @param maxFrameSize the largest reply accepted, in bytes
   * @param peer the server, for errors; may be {@code null}
   */
  public static ClientCodec framed(int maxFrameSize, Object peer) {
    return new ClientCodec(
        WireKind.FRAMED,
        new FramedDecoder(Framing.checkMaxFrameSize(maxFrameSize), null, peer, null, null),
        null,
        String.valueOf(peer),
        null,
        maxFrameSize);
  }

  /**
   * A SASL connection's security layer, which the negotiation completes; {@code null} on every
   * other wire kind.
   */
  public SaslLayer saslLayer() {
    return saslLayer;
  }

  /**
   * The request message as it goes on the wire: itself, or wrapped by a SASL connection's security
   * layer (call in write order: the mechanism numbers what it wraps).
   *
   * @throws SaslException if the mechanism cannot wrap it
   * @throws TTransportException {@code CORRUPTED_DATA} if the wrapped message is over {@code
   *     maxFrameSize}
   */
  public ByteBuffer wrap(ByteBuffer message) throws SaslException, TTransportException {
    if (saslLayer == null || !saslLayer.wraps()) {
      return message;
    }
    byte[] plain = new byte[message.remaining()];
    message.duplicate().get(plain);
    byte[] wrapped = saslLayer.wrap(plain, 0, plain.length);
    if (wrapped.length > maxFrameSize) {
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "request to "
              + peer
              + " of "
              + plain.length
              + " bytes is "
              + wrapped.length
              + " bytes wrapped by SASL (expected: <= maxFrameSize "
              + maxFrameSize
              + ")");
    }
    return ByteBuffer.wrap(wrapped);
  }

  /** The connection's transport. */
  public WireKind transport() {
    return transport;
  }

  /** Whether the wire carries headers (THeader, HTTP): request headers are sent, replies read. */
  public boolean carriesHeaders() {
    return transport == WireKind.HTTP || transport == WireKind.HEADER;
  }

  /**
   * Whether replies are matched to requests by the sequence id of their header ({@link
   * #replySeqId()}) rather than by their order: THeader, whose requests say so in their flags.
   */
  public boolean matchesBySeqId() {
    return transport == WireKind.HEADER;
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
  public TException refusal(ByteBuffer message, Map<String, String> headers) {
    if (transport == WireKind.HEADER) {
      try {
        THeaderHead.protocolId(message, peer);
      } catch (TProtocolException e) {
        return e;
      }
    } else if (transport == WireKind.HTTP && !headers.isEmpty()) {
      String wrong = HttpRequestHead.refusal(headers);
      if (wrong != null) {
        return new TProtocolException(
            TProtocolException.INVALID_DATA, "HTTP request to " + peer + " not sent: " + wrong);
      }
    }
    return null;
  }

  /**
   * The bytes to send before a request, without headers; call once per request, in write order.
   *
   * @param bodyLength the request message's length, in bytes
   * @param oneway whether the request is a oneway call (an HTTP server answers it anyway)
   * @return the head: a length prefix, an HTTP head, or no bytes; the caller owns it
   * @throws IllegalStateException on THeader, whose head needs the message ({@link
   *     #head(ByteBuffer, boolean, Map, int, long)})
   */
  public byte[] head(int bodyLength, boolean oneway) {
    switch (transport) {
      case FRAMED:
      case SASL:
        byte[] prefix = new byte[Framing.HEADER_SIZE];
        Framing.encodeLength(bodyLength, prefix, 0);
        return prefix;
      case HTTP:
        ((HttpResponseDecoder) decoder).expect(oneway);
        return httpHead.head(bodyLength);
      case HEADER:
        throw new IllegalStateException("a THeader head needs the message: head(message, ...)");
      default:
        return NO_HEAD;
    }
  }

  /**
   * The bytes to send before a request, with its headers; call once per request, in write order,
   * after {@link #refusal} found nothing wrong.
   *
   * @param message the request message, from position to limit; not moved
   * @param oneway whether the request is a oneway call
   * @param headers the request's headers; sent on THeader (info headers) and HTTP (fields)
   * @param seqId the sequence id of a THeader request's header: the connection's own
   * @param timeoutMillis how long the client waits for the reply, sent as {@value
   *     CallHeaders#CLIENT_TIMEOUT} where headers are carried; 0 for none
   * @return the head; the caller owns it
   * @throws TProtocolException if the message or the headers cannot be sent (see {@link #refusal})
   */
  public byte[] head(
      ByteBuffer message,
      boolean oneway,
      Map<String, String> headers,
      int seqId,
      long timeoutMillis)
      throws TProtocolException {
    if (!carriesHeaders()) {
      return head(message.remaining(), oneway);
    }
    Map<String, String> sent = headers;
    if (timeoutMillis > 0) {
      sent = new LinkedHashMap<>(headers);
      sent.put(CallHeaders.CLIENT_TIMEOUT, Long.toString(timeoutMillis));
    }
    if (transport == WireKind.HTTP) {
      ((HttpResponseDecoder) decoder).expect(oneway);
      return httpHead.head(message.remaining(), sent);
    }
    return THeaderHead.head(
            THeaderHead.protocolId(message, peer),
            THeaderHead.FLAG_SUPPORT_OUT_OF_ORDER,
            seqId,
            NO_TRANSFORMS,
            sent,
            message.remaining())
        .array();
  }

  /**
   * The headers of the reply the last step delivered ({@code MESSAGE}): THeader info headers, or
   * HTTP header fields with lower-cased names; empty for a wire without headers. Read on the
   * reading thread, right after the step.
   */
  public Map<String, String> replyHeaders() {
    return replyHeaders;
  }

  /**
   * The sequence id of the header of the reply the last step delivered, on THeader ({@link
   * #matchesBySeqId()}): the request's, echoed by the server. Read right after the step.
   */
  public int replySeqId() {
    return replySeqId;
  }

  /**
   * Decodes the next step from {@code start}: a reply, or what else the bytes hold.
   *
   * @return the event; its details in {@link #decoded()}
   */
  public int next(ByteSource in, int start, int available) {
    if (rejected) {
      return decoded.needMore();
    }
    return done(decoder.decode(in, start, available, decoded));
  }

  /**
   * The connection ended with {@code available} bytes not consumed: an HTTP body that runs to the
   * end of the stream is delivered ({@code MESSAGE}); a reply cut short refuses, saying where.
   */
  public int endOfStream(ByteSource in, int start, int available) {
    if (rejected) {
      return decoded.needMore();
    }
    return done(decoder.endOfStream(in, start, available, decoded));
  }

  /** The details of the last step. */
  public Decoded decoded() {
    return decoded;
  }

  /** Whether nothing more is read: a reply was refused, or the server ends the connection. */
  public boolean rejected() {
    return rejected;
  }

  private int done(int event) {
    if (event == Decoded.MESSAGE) {
      if (transport == WireKind.HEADER) {
        THeaderEnvelope envelope = (THeaderEnvelope) decoded.envelope();
        replyHeaders = envelope.headers();
        replySeqId = envelope.seqId();
      } else if (transport == WireKind.HTTP) {
        replyHeaders = ((HttpResponseDecoder) decoder).lastHeaders();
      }
    }
    if (event == Decoded.REFUSED) {
      rejected = true;
      log.warn("Closing connection to {}: {}", peer, decoded.refusal().reason());
    } else if (decoded.closeAfter() != null) {
      rejected = true;
    }
    return event;
  }

  @Override
  public String toString() {
    return "ClientCodec{" + transport + ", " + peer + "}";
  }
}
