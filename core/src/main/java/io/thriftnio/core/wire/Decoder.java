package io.thriftnio.core.wire;

/**
 * One connection's decoder for one wire kind, in one role: it finds the messages (and whatever else
 * the kind carries) in the bytes an IO adapter buffered. It keeps its place between calls, so a
 * message arriving in many reads is read once, and consumes nothing itself: it reports what a step
 * consumed in {@link Decoded}, and the caller advances past it before the next step.
 *
 * <p>Every length the bytes declare is checked against the limits before anything is allocated or
 * waited for. Not thread-safe: one reading thread at a time.
 */
public interface Decoder {

  /**
   * Decodes one step from {@code start}.
   *
   * @param in the buffered bytes; not modified
   * @param start the index of the first byte not yet consumed
   * @param available the bytes buffered from {@code start}, possibly 0
   * @param out receives the step's result
   * @return the event, as {@link Decoded#event()}
   */
  WireEvent decode(ByteSource in, int start, int available, Decoded out);

  /**
   * The input ended with {@code available} unconsumed bytes from {@code start}: a kind whose last
   * message runs to the end of the stream delivers it ({@code MESSAGE}); one that can say how a
   * message was cut short refuses ({@code REFUSED}); by default nothing happens.
   *
   * @param in the buffered bytes
   * @param start the index of the first byte not consumed
   * @param available the bytes left, possibly 0
   * @param out receives the result
   * @return the event
   */
  default WireEvent endOfStream(ByteSource in, int start, int available, Decoded out) {
    return out.needMore();
  }

  /**
   * The envelope every request of this connection carries, when the kind makes one per connection
   * (SASL's, which wraps replies under the negotiated protection and knows who authenticated);
   * {@code null}, the default: the kind's own ({@link WireFormat#envelope()}).
   */
  default Envelope envelope() {
    return null;
  }

  /**
   * The connection ended: release what the decoder holds beyond memory (a SASL mechanism's security
   * context). Called once, on any thread; by default nothing.
   */
  default void close() {}
}
