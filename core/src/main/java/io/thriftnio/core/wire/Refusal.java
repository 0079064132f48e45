package io.thriftnio.core.wire;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.util.internal.FrameSizeException;
import java.nio.ByteBuffer;
import org.apache.thrift.protocol.TMessage;

/**
 * Why a decoder stopped reading a connection for good ({@link WireEvent#REFUSED}): the bytes break
 * their wire kind's rules or a limit, or match no kind the server accepts. Nothing after them is
 * read. Immutable.
 *
 * <p>A server answers, after every earlier reply, with {@link #answer()} when the kind has one (an
 * HTTP error response), else with a {@code TApplicationException(PROTOCOL_ERROR)} to {@link
 * #header()} when it was read, sent in {@link #envelope()}; then it closes. A client fails its
 * waiting calls with {@link #exception()}.
 */
public final class Refusal {

  /** Whose doing a failed handshake was, which sets how the server logs it. */
  public enum Fault {
    /**
     * The peer broke the handshake's rules (bad bytes, a timeout): WARN, once per peer address
     * among the recent ones, then DEBUG.
     */
    PEER,
    /**
     * The peer's credential was refused (a wrong password): INFO, once per peer address among the
     * recent ones, then DEBUG.
     */
    CREDENTIAL,
    /**
     * The server could not tell (an authenticator threw, its user store down): WARN for every
     * connection, with the stack trace once per peer address among the recent ones.
     */
    SERVER
  }

  private final String reason;
  private final TMessage header;
  private final Envelope envelope;
  private final ByteBuffer answer;
  private final Exception exception;
  private final CloseCause closeCause;
  private final Fault fault;
  private final Throwable error;

  private Refusal(
      String reason, TMessage header, Envelope envelope, ByteBuffer answer, Exception exception) {
    this(reason, header, envelope, answer, exception, null, Fault.PEER, null);
  }

  private Refusal(
      String reason,
      TMessage header,
      Envelope envelope,
      ByteBuffer answer,
      Exception exception,
      CloseCause closeCause,
      Fault fault,
      Throwable error) {
    this.reason = reason;
    this.header = header;
    this.envelope = envelope;
    this.answer = answer;
    this.exception = exception;
    this.closeCause = closeCause;
    this.fault = fault;
    this.error = error;
  }

  /**
   * A connection-level handshake of the kind's own that failed (a SASL negotiation): answered with
   * {@code answer}, then closed, and counted and told to connection listeners as {@code cause}
   * rather than as a bad request.
   *
   * @param reason what failed, with the peer
   * @param answer the kind's own refusal (SASL's {@code BAD} or {@code ERROR} message)
   * @param cause why the connection closes, e.g. {@link CloseCause#SASL_FAILURE}
   */
  public static Refusal handshakeFailed(String reason, ByteBuffer answer, CloseCause cause) {
    return handshakeFailed(reason, answer, cause, Fault.PEER, null);
  }

  /**
   * {@link #handshakeFailed(String, ByteBuffer, CloseCause)} whose log line depends on {@code
   * fault}. The {@code answer} is what the peer may know; {@code reason} and {@code error}, the
   * detail, are for the server's log only.
   *
   * @param fault whose doing it was
   * @param error the server's own failure behind a {@link Fault#SERVER}, or {@code null}
   */
  public static Refusal handshakeFailed(
      String reason, ByteBuffer answer, CloseCause cause, Fault fault, Throwable error) {
    return new Refusal(reason, null, null, answer, null, cause, fault, error);
  }

  /**
   * A refusal without an answer of its own.
   *
   * @param reason what was wrong, with the peer and the numbers
   * @param header the refused message's header, read before the fault, or {@code null}
   * @param envelope how an answer to {@code header} leaves
   */
  public static Refusal of(String reason, TMessage header, Envelope envelope) {
    return new Refusal(reason, header, envelope, null, null);
  }

  /**
   * A frame whose length broke the rules.
   *
   * @param cause the length, the limit and the peer
   * @param header the frame's message header, read from the bytes that came with the length, or
   *     {@code null}
   */
  public static Refusal frameSize(FrameSizeException cause, TMessage header) {
    return new Refusal(cause.getMessage(), header, Envelope.FRAMED, null, cause);
  }

  /** {@link #frameSize(FrameSizeException, TMessage)} whose reason is {@code reason}. */
  static Refusal frameSize(FrameSizeException cause, TMessage header, String reason) {
    return new Refusal(reason, header, Envelope.FRAMED, null, cause);
  }

  /**
   * A refusal answered with a whole response of the kind's own (an HTTP error), then a close.
   *
   * @param reason what was wrong, with the peer
   * @param answer the response
   */
  public static Refusal answered(String reason, ByteBuffer answer) {
    return new Refusal(reason, null, null, answer, null);
  }

  /**
   * A client's refusal: its waiting calls fail with {@code exception}.
   *
   * @param exception the failure, whose message says what was wrong
   */
  public static Refusal ofClient(Exception exception) {
    return new Refusal(exception.getMessage(), null, null, null, exception);
  }

  /** What was wrong, with the peer and the numbers: the log line and the error's text. */
  public String reason() {
    return reason;
  }

  /** The refused message's header when it was read, for an answer; else {@code null}. */
  public TMessage header() {
    return header;
  }

  /** How an answer to {@link #header()} leaves; {@code null} when there is no header. */
  public Envelope envelope() {
    return envelope;
  }

  /** The whole response to send before closing, or {@code null}. */
  public ByteBuffer answer() {
    return answer == null ? null : answer.duplicate();
  }

  /**
   * The failure behind the refusal: a {@link FrameSizeException} for a frame length that broke the
   * rules, a client's {@code TTransportException}; {@code null} for a server's other refusals.
   */
  public Exception exception() {
    return exception;
  }

  /**
   * Why the connection closes, when a handshake failed ({@link #handshakeFailed}); {@code null} for
   * the other refusals, which are bad requests.
   */
  public CloseCause closeCause() {
    return closeCause;
  }

  /** Whose doing a failed handshake was; {@link Fault#PEER} for every other refusal. */
  public Fault fault() {
    return fault;
  }

  /** The server's own failure behind a {@link Fault#SERVER} handshake failure, or {@code null}. */
  public Throwable error() {
    return error;
  }

  /** The frame length that broke the rules, or {@code null} for other refusals. */
  public FrameSizeException frameSize() {
    return exception instanceof FrameSizeException ? (FrameSizeException) exception : null;
  }

  @Override
  public String toString() {
    return "Refusal{" + reason + (header != null ? ", header " + header.name : "") + "}";
  }
}
