package io.thriftnio.core.wire;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/**
 * What one step of decoding found: the event a decoder returns, and what goes with it. One instance
 * per connection, overwritten by each step, so decoding allocates nothing of its own for a framed
 * or unframed message. The IO adapter reads it right after the step, before the next.
 *
 * <pre>
 * event       the adapter ...                                             with
 * NEED_MORE   keeps the bytes and waits for more                         -
 * MESSAGE     passes the message on (server: a request; client: a reply) payload, envelope
 * ANSWER      sends bytes without a call, after the earlier replies      answer()
 * FAILED      fails the next call; the connection goes on (client)       failure()
 * SKIPPED     drops the bytes: a reply no call waits for (client)        -
 * REFUSED     reads nothing more; answers and closes (see Refusal)       refusal()
 * AWAIT       skips consumed(), keeps reading; starts step() (if any) once   awaited(), step()
 *             it holds no lock; once awaited() completes, decodes again
 *             on the IO thread, even with no new byte
 * </pre>
 *
 * <p>{@code AWAIT} is how a kind with a handshake of its own (SASL's negotiation) runs a step off
 * the IO thread, or keeps a deadline, without owning a thread or a timer of the adapter's: the
 * adapter registers one wake-up per {@code AWAIT} event and, when it fires, calls {@code next} with
 * whatever it still has buffered (possibly nothing) and acts on the events until {@code NEED_MORE}
 * or another {@code AWAIT}. A wake-up that finds nothing to do costs one {@code NEED_MORE}. The
 * decoder never starts a step itself: it may call an executor of the application's, so the adapter
 * runs {@link #step()}, once, after it has left every lock of its own (issue 38).
 *
 * <p>Every event but {@code NEED_MORE} and {@code REFUSED} may consume bytes: {@link #consumed()}
 * from the index the step started at. A message's payload is either a slice of those bytes ({@link
 * #payloadOffset()}, {@link #payloadLength()}: zero-copy for the adapter) or an array of its own
 * ({@link #payloadArray()}: a chunked HTTP body assembled, a payload transformed).
 */
public final class Decoded {

  private WireEvent event;
  private int consumed;
  private int offset;
  private int length;
  private byte[] array;
  private Envelope envelope;
  private ByteBuffer answer;
  private boolean refusesRequest;
  private String closeAfter;
  private Refusal refusal;
  private Exception failure;
  private CompletionStage<?> awaited;
  private Runnable step;

  /** An empty result; decoders fill it. */
  public Decoded() {}

  // ---- for decoders: each sets one event and returns it ----

  /** Nothing whole yet. */
  public WireEvent needMore() {
    return reset(WireEvent.NEED_MORE, 0);
  }

  /**
   * A message whose payload is a slice of the bytes decoded.
   *
   * @param consumed the bytes the message took, framing included
   * @param offset the payload's offset from the step's start
   * @param length the payload's length
   * @param envelope how its reply leaves (servers); {@code null} on clients
   */
  public WireEvent message(int consumed, int offset, int length, Envelope envelope) {
    reset(WireEvent.MESSAGE, consumed);
    this.offset = offset;
    this.length = length;
    this.envelope = envelope;
    return WireEvent.MESSAGE;
  }

  /**
   * A message whose payload is an array of its own.
   *
   * @param consumed the bytes the message took
   * @param payload the whole payload; the receiver owns it
   * @param envelope how its reply leaves (servers); {@code null} on clients
   */
  public WireEvent message(int consumed, byte[] payload, Envelope envelope) {
    reset(WireEvent.MESSAGE, consumed);
    this.array = payload;
    this.length = payload.length;
    this.envelope = envelope;
    return WireEvent.MESSAGE;
  }

  /**
   * Bytes to send without a call.
   *
   * @param consumed the bytes the step took (0 for {@code 100 Continue})
   * @param answer the whole response; {@code null} for none: with {@code closeAfter}, the
   *     connection closes after the earlier replies without sending anything more
   * @param refusesRequest whether it refuses a request (counted as a bad request)
   * @param closeAfter whether the connection closes after it: nothing later is read
   */
  public WireEvent answer(
      int consumed, ByteBuffer answer, boolean refusesRequest, boolean closeAfter) {
    reset(WireEvent.ANSWER, consumed);
    this.answer = answer;
    this.refusesRequest = refusesRequest;
    this.closeAfter = closeAfter ? "closed after an answer" : null;
    return WireEvent.ANSWER;
  }

  /**
   * A reply that fails its call.
   *
   * @param consumed the bytes of the reply
   * @param failure what the call fails with
   */
  public WireEvent failed(int consumed, Exception failure) {
    reset(WireEvent.FAILED, consumed);
    this.failure = failure;
    return WireEvent.FAILED;
  }

  /** Bytes consumed, nothing delivered. */
  public WireEvent skipped(int consumed) {
    return reset(WireEvent.SKIPPED, consumed);
  }

  /** The connection cannot be read on. */
  public WireEvent refused(Refusal refusal) {
    reset(WireEvent.REFUSED, 0);
    this.refusal = refusal;
    return WireEvent.REFUSED;
  }

  /** Decoding waits for {@code stage}; nothing consumed. */
  public WireEvent await(CompletionStage<?> stage) {
    return await(0, stage);
  }

  /**
   * Decoding waits for {@code stage}: a step of the kind's own that runs elsewhere (a SASL
   * mechanism's step on another thread) or a deadline of the kind's own (a negotiation's).
   *
   * @param consumed the bytes the kind took for that step (a negotiation message), possibly 0
   * @param stage completes when the decoder has something to say: decode again then
   */
  public WireEvent await(int consumed, CompletionStage<?> stage) {
    return await(consumed, stage, null);
  }

  /**
   * Decoding waits for {@code stage}, which completes once {@code step} has run (or failed to
   * start) or the kind's deadline passed; the adapter runs {@code step} once it holds no lock.
   *
   * @param consumed the bytes the kind took for that step (a negotiation message)
   * @param stage completes when the decoder has something to say: decode again then
   * @param step starts the work (submits it to an executor, possibly the application's); {@code
   *     null} for none
   */
  public WireEvent await(int consumed, CompletionStage<?> stage, Runnable step) {
    reset(WireEvent.AWAIT, consumed);
    this.awaited = stage;
    this.step = step;
    return WireEvent.AWAIT;
  }

  /**
   * After a {@code MESSAGE}, {@code FAILED} or {@code SKIPPED} event: the peer ends the connection
   * after it, and nothing later is read.
   *
   * @param reason why, for the calls still waiting (a client's) or the log
   */
  public void closeAfter(String reason) {
    this.closeAfter = reason;
  }

  private WireEvent reset(WireEvent event, int consumed) {
    this.event = event;
    this.consumed = consumed;
    this.offset = 0;
    this.length = 0;
    this.array = null;
    this.envelope = null;
    this.answer = null;
    this.refusesRequest = false;
    this.closeAfter = null;
    this.refusal = null;
    this.failure = null;
    this.awaited = null;
    this.step = null;
    return event;
  }

  // ---- for adapters ----

  /** The last step's event. */
  public WireEvent event() {
    return event;
  }

  /** Bytes the last step took, from the index it started at. */
  public int consumed() {
    return consumed;
  }

  /** The payload's offset from the step's start, when {@link #payloadArray()} is null. */
  public int payloadOffset() {
    return offset;
  }

  /** The payload's length in bytes. */
  public int payloadLength() {
    return length;
  }

  /** The payload as an array of its own, or {@code null} when it is a slice of the input. */
  public byte[] payloadArray() {
    return array;
  }

  /** How a request's reply leaves; {@code null} on a client. */
  public Envelope envelope() {
    return envelope;
  }

  /** The bytes of an {@code ANSWER}; a new view each call. */
  public ByteBuffer answer() {
    return answer == null ? null : answer.duplicate();
  }

  /** Whether an {@code ANSWER} refuses a request (counted as a bad request). */
  public boolean refusesRequest() {
    return refusesRequest;
  }

  /** Why the connection ends after this event, or {@code null} when it goes on. */
  public String closeAfter() {
    return closeAfter;
  }

  /** Why a {@code REFUSED} connection cannot be read on. */
  public Refusal refusal() {
    return refusal;
  }

  /** What a {@code FAILED} reply's call fails with. */
  public Exception failure() {
    return failure;
  }

  /**
   * What an {@code AWAIT} waits for; decode again once it completes (normally or not), on the IO
   * thread.
   */
  public CompletionStage<?> awaited() {
    return awaited;
  }

  /**
   * What an {@code AWAIT} starts, or {@code null}: the adapter runs it exactly once, after it has
   * left every lock it holds (it may call the application's executor, which may run the step on the
   * calling thread), and before or after registering its wake-up on {@link #awaited()}.
   */
  public Runnable step() {
    return step;
  }
}
