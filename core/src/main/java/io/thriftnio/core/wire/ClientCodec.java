package io.thriftnio.core.wire;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.Framing;
import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
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
 * </pre>
 *
 * <p>A refusal (a frame over {@code maxFrameSize}, an invalid unframed reply, a malformed HTTP
 * response) ends the connection: {@link Refusal#exception()} is what the waiting calls fail with.
 * Threads: {@link #head} on the writing thread, in write order; {@link #next} and {@link
 * #endOfStream} on the reading thread.
 */
public final class ClientCodec {

  private static final Logger log = LoggerFactory.getLogger(ClientCodec.class);

  private static final byte[] NO_HEAD = new byte[0];

  private final WireKind transport;
  private final Decoder decoder;
  private final HttpRequestHead httpHead;
  private final Decoded decoded = new Decoded();
  private final String peer;
  private volatile boolean rejected;

  private ClientCodec(WireKind transport, Decoder decoder, HttpRequestHead httpHead, String peer) {
    this.transport = transport;
    this.decoder = decoder;
    this.httpHead = httpHead;
    this.peer = peer;
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
            WireKind.UNFRAMED, UnframedDecoder.forReplies(max, peer), null, peer);
      case HTTP:
        return new ClientCodec(
            WireKind.HTTP,
            new HttpResponseDecoder(max, address, peer),
            new HttpRequestHead(address, options.httpPath()),
            peer);
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
        String.valueOf(peer));
  }

  /** The connection's transport. */
  public WireKind transport() {
    return transport;
  }

  /**
   * The bytes to send before a request; call once per request, in write order.
   *
   * @param bodyLength the request message's length, in bytes
   * @param oneway whether the request is a oneway call (an HTTP server answers it anyway)
   * @return the head: a length prefix, an HTTP head, or no bytes; the caller owns it
   */
  public byte[] head(int bodyLength, boolean oneway) {
    switch (transport) {
      case FRAMED:
        byte[] prefix = new byte[Framing.HEADER_SIZE];
        Framing.encodeLength(bodyLength, prefix, 0);
        return prefix;
      case HTTP:
        ((HttpResponseDecoder) decoder).expect(oneway);
        return httpHead.head(bodyLength);
      default:
        return NO_HEAD;
    }
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
