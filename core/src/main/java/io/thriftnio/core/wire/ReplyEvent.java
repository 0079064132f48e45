package io.thriftnio.core.wire;

/**
 * What a client connection's reply says besides its payload, for an IO adapter that hands the
 * decoder's findings on as messages: a call that fails (an HTTP status other than {@code 200}), a
 * connection the server ends after the reply, or a reply that cannot be read, which ends the
 * connection. Immutable.
 */
public final class ReplyEvent {

  private final Exception callFailure;
  private final String closeReason;
  private final Exception connectionFailure;

  private ReplyEvent(Exception callFailure, String closeReason, Exception connectionFailure) {
    this.callFailure = callFailure;
    this.closeReason = closeReason;
    this.connectionFailure = connectionFailure;
  }

  /**
   * The event of a step, if it has one.
   *
   * @param d a client codec's last step
   * @return the event, or {@code null} for a reply that says nothing more, or nothing found
   */
  public static ReplyEvent of(Decoded d) {
    switch (d.event()) {
      case FAILED:
        return new ReplyEvent(d.failure(), d.closeAfter(), null);
      case REFUSED:
        Exception e = d.refusal().exception();
        return new ReplyEvent(null, e == null ? d.refusal().reason() : null, e);
      case MESSAGE:
      case SKIPPED:
        return d.closeAfter() == null ? null : new ReplyEvent(null, d.closeAfter(), null);
      default:
        return null;
    }
  }

  /** What the next call waiting fails with, or {@code null}. */
  public Exception callFailure() {
    return callFailure;
  }

  /**
   * Why the connection ends in order (the server said so, or nothing more can be matched), failing
   * the calls still waiting with this text; {@code null} if it goes on, or ends with {@link
   * #connectionFailure()}.
   */
  public String closeReason() {
    return closeReason;
  }

  /** What the connection ends with, the waiting calls failing with it; or {@code null}. */
  public Exception connectionFailure() {
    return connectionFailure;
  }

  @Override
  public String toString() {
    return "ReplyEvent{"
        + (callFailure != null ? "call fails: " + callFailure.getMessage() : "")
        + (closeReason != null ? " close: " + closeReason : "")
        + (connectionFailure != null ? " fails: " + connectionFailure.getMessage() : "")
        + "}";
  }
}
