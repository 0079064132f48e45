package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.SaslIdentity;
import java.net.SocketAddress;
import org.apache.thrift.protocol.TMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server connection's decoding, the object an IO adapter keeps per connection: the {@link
 * Sniffer} on the first bytes, then the chosen kind's {@link Decoder}, and the state around them
 * that the adapter's timeouts and drain ask about (a message in progress since when, whether the
 * connection was refused). Refusals are logged here, once, in the same words on every transport.
 *
 * <pre>
 *  adapter's read: bytes --next()--&gt; Decoded: MESSAGE  -&gt; the call path (payload, envelope)
 *                                            ANSWER   -&gt; the call path, after earlier replies
 *                                            REFUSED  -&gt; the call path answers, then closes
 *                                            AWAIT    -&gt; wake() once awaited() is done
 *                                            NEED_MORE: keep the bytes (drop them if rejected())
 * </pre>
 *
 * <p>Threads: {@link #next} and {@link #peek} on the reading thread, one at a time; {@link
 * #partialSinceNanos()}, {@link #rejected()} and {@link #discardRest()} on any thread.
 */
public final class ServerCodec {

  private static final Logger log = LoggerFactory.getLogger(ServerCodec.class);

  private final WireSettings settings;
  private final SocketAddress peer;
  private final Decoded decoded = new Decoded();
  private final Sniffer sniffer;

  private volatile WireFormat kind;
  private volatile Envelope connectionEnvelope;

  // The reading thread's (see Threads above).
  private Decoder decoder;

  /** {@link #decoded} holds a step {@link #peek} took, not yet handed out. */
  private boolean ahead;

  private volatile boolean rejected;
  private volatile long partialSinceNanos;

  /**
   * The codec of one connection.
   *
   * @param settings the server's
   * @param peer the remote address, for log lines and errors
   */
  public ServerCodec(WireSettings settings, SocketAddress peer) {
    this.settings = settings;
    this.peer = peer;
    if (settings.probesOnly()) {
      // Accepted while the server drains: a health probe, or nothing (issue 28).
      this.sniffer = null;
      chose(ProbeDecoder.KIND);
    } else if (settings.kinds().contains(FramedDecoder.KIND)
        && settings.accepted().size() == 1
        && settings.accepted().contains(FramedDecoder.KIND.wireKind())) {
      // Nothing to detect: foreign first bytes meet the framing rules, as they always did.
      this.sniffer = null;
      chose(FramedDecoder.KIND);
    } else {
      this.sniffer = new Sniffer(settings);
    }
  }

  /**
   * Decodes the next step from {@code start}.
   *
   * @param in the connection's buffered bytes
   * @param start the index of the first byte not consumed
   * @param available the bytes buffered from {@code start}
   * @return the event; its details in {@link #decoded()}
   */
  public WireEvent next(ByteSource in, int start, int available) {
    if (ahead) {
      ahead = false;
      return decoded.event();
    }
    return step(in, start, available);
  }

  /**
   * Whether another whole message follows in {@code in}: a server answering the message just
   * delivered may wait and send both replies in one write. The step is kept for the next {@link
   * #next}, which must start at the same bytes: the caller takes the delivered message's payload
   * and envelope before it looks ahead. Framed, unframed and THeader requests are looked ahead
   * (pipelining peers send many per read; without it each THeader reply was a write of its own); an
   * HTTP reply leaves at once.
   */
  public boolean peek(ByteSource in, int start, int available) {
    WireFormat k = kind;
    if (rejected || k == null || available == 0) {
      return false;
    }
    if (envelope() == null && k.wireKind() != WireKind.HEADER) {
      return false; // HTTP: each reply leaves at once, as it always did
    }
    WireEvent event = step(in, start, available);
    ahead = event != WireEvent.NEED_MORE;
    return event == WireEvent.MESSAGE;
  }

  /**
   * Whether the connection is in a handshake of its kind's own (a SASL negotiation not yet
   * complete), during which the wire may ask the adapter to wait ({@code WireEvent.AWAIT}). Any
   * thread.
   */
  public boolean handshaking() {
    WireFormat k = kind;
    return k != null && k.wireKind() == WireKind.SASL && saslIdentity() == null && !rejected;
  }

  /**
   * What an {@code AWAIT} waited for completed: decodes once more with no new byte, for an adapter
   * that cannot reach the bytes it keeps between reads (they are read with the next). Returns
   * {@code NEED_MORE}, leaving {@link #decoded()} alone, once the handshake is over: a wake-up late
   * after it has nothing to do.
   */
  public WireEvent wake() {
    return handshaking() ? next(NOTHING, 0, 0) : WireEvent.NEED_MORE;
  }

  private static final ByteSource NOTHING = new ArrayBytes(new byte[0]);

  /** The details of the last step. */
  public Decoded decoded() {
    return decoded;
  }

  /** The kind the connection speaks, once its first bytes told; {@code null} before. */
  public WireFormat kind() {
    return kind;
  }

  /**
   * The envelope every request of this connection carries, once known; {@code null} before, and for
   * kinds whose requests carry their own (HTTP).
   */
  public Envelope envelope() {
    Envelope own = connectionEnvelope;
    if (own != null) {
      return own;
    }
    WireFormat k = kind;
    return k == null ? null : k.envelope();
  }

  /**
   * Who the connection authenticated as ({@link WireKind#SASL}, once its negotiation completed);
   * {@code null} before, and on the other kinds. Any thread.
   */
  public SaslIdentity saslIdentity() {
    Envelope own = connectionEnvelope;
    return own == null ? null : own.saslIdentity();
  }

  /** Whether nothing more is read: the connection was refused, or ends after a message. */
  public boolean rejected() {
    return rejected;
  }

  /**
   * The server closes the connection for its own reasons (a timeout): the partial message, if any,
   * is dropped without counting it as the peer's, and later bytes are discarded.
   */
  public void discardRest() {
    rejected = true;
  }

  /**
   * When the message being received started to arrive ({@link System#nanoTime()}, never 0), or 0 if
   * none is incomplete.
   */
  public long partialSinceNanos() {
    return partialSinceNanos;
  }

  /**
   * The input ended. Whether it ended inside a message the peer had begun (not one refused or
   * dropped by the server): the adapter counts it.
   */
  public boolean endOfInput() {
    boolean truncated = !rejected && partialSinceNanos != 0;
    if (truncated) {
      log.debug("Connection from {} ended inside a message: its bytes are dropped", peer);
    }
    partialSinceNanos = 0;
    Decoder d = decoder;
    if (d != null) {
      d.close();
    }
    return truncated;
  }

  private WireEvent step(ByteSource in, int start, int available) {
    if (rejected) {
      return decoded.needMore();
    }
    if (decoder == null) {
      if (available == 0) {
        return decoded.needMore();
      }
      WireFormat detected = sniffer.detect(in, start, available);
      if (detected == null) {
        if (sniffer.undecided()) {
          partial();
          return decoded.needMore();
        }
        return refuse(Refusal.of(sniffer.describeRefusal(in, start, available, peer), null, null));
      }
      chose(detected);
    }
    WireEvent event = decoder.decode(in, start, available, decoded);
    switch (event) {
      case NEED_MORE:
        if (available > 0) {
          partial();
        }
        break;
      case REFUSED:
        refuse(decoded.refusal());
        break;
      case AWAIT:
        if (available > decoded.consumed()) {
          partial(); // a message of the peer's begun behind the step
        } else {
          partialSinceNanos = 0;
        }
        break;
      default:
        partialSinceNanos = 0;
        if (decoded.closeAfter() != null) {
          rejected = true; // nothing after this is read: the connection closes after its reply
        }
        break;
    }
    return event;
  }

  private void chose(WireFormat detected) {
    decoder = detected.newDecoder(settings, peer);
    connectionEnvelope = decoder.envelope();
    kind = detected;
  }

  private void partial() {
    if (partialSinceNanos == 0) {
      partialSinceNanos = System.nanoTime() | 1; // never 0 once set
    }
  }

  private WireEvent refuse(Refusal refusal) {
    rejected = true;
    partialSinceNanos = 0;
    TMessage header = refusal.header();
    if (refusal.closeCause() != null) {
      // A client retrying a wrong password would fill the log: one line per peer address. The
      // server's own failures are logged for every connection: they are the operator's to fix.
      SaslSettings sasl = settings.sasl();
      boolean first = sasl == null || sasl.firstFailureOf(peer);
      switch (refusal.fault()) {
        case SERVER:
          if (first) {
            log.warn("Closing connection: {}", refusal.reason(), refusal.error());
          } else {
            log.warn("Closing connection: {}", refusal.reason());
          }
          break;
        case CREDENTIAL:
          if (first) {
            log.info("Closing connection: {}", refusal.reason());
          } else {
            log.debug("Closing connection: {}", refusal.reason());
          }
          break;
        default:
          if (first) {
            log.warn("Closing connection: {}", refusal.reason());
          } else {
            log.debug("Closing connection: {}", refusal.reason());
          }
          break;
      }
    } else if (header != null) {
      log.warn(
          "Closing connection: {} (its header: {} seqid {})",
          refusal.reason(),
          header.name,
          header.seqid);
    } else {
      log.warn("Closing connection: {}", refusal.reason());
    }
    return decoded.event() == WireEvent.REFUSED && decoded.refusal() == refusal
        ? WireEvent.REFUSED
        : decoded.refused(refusal);
  }

  @Override
  public String toString() {
    return "ServerCodec{" + peer + ", " + (kind != null ? kind : "undetected") + "}";
  }
}
