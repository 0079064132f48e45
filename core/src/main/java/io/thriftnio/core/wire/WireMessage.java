package io.thriftnio.core.wire;

/**
 * One decoded message as an IO adapter passes it along its pipeline or filter chain when its
 * payload alone does not say enough: a request whose reply leaves in an envelope of its own (an
 * HTTP request), or a reply that says more than its payload ({@link ReplyEvent}). Immutable.
 *
 * @param <P> the adapter's buffer type
 */
public final class WireMessage<P> {

  private final P payload;
  private final byte[] array;
  private final Envelope envelope;
  private final ReplyEvent event;

  private WireMessage(P payload, byte[] array, Envelope envelope, ReplyEvent event) {
    this.payload = payload;
    this.array = array;
    this.envelope = envelope;
    this.event = event;
  }

  /**
   * A request with its envelope.
   *
   * @param payload the payload as a slice of the adapter's buffer, or {@code null}
   * @param array the payload as an array of its own (then {@code payload} is {@code null})
   * @param envelope how its reply leaves
   */
  public static <P> WireMessage<P> request(P payload, byte[] array, Envelope envelope) {
    return new WireMessage<>(payload, array, envelope, null);
  }

  /**
   * A reply and what it says besides its payload.
   *
   * @param payload the reply's payload, or {@code null} when there is none (a refusal)
   * @param event what the reply says
   */
  public static <P> WireMessage<P> reply(P payload, ReplyEvent event) {
    return new WireMessage<>(payload, null, null, event);
  }

  /** The payload in the adapter's buffer, or {@code null}. */
  public P payload() {
    return payload;
  }

  /** The payload as an array of its own, or {@code null}. */
  public byte[] array() {
    return array;
  }

  /** How a request's reply leaves; {@code null} for a reply. */
  public Envelope envelope() {
    return envelope;
  }

  /** What a reply says besides its payload; {@code null} for a request. */
  public ReplyEvent event() {
    return event;
  }
}
