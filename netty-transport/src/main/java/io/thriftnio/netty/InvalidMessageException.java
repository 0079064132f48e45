package io.thriftnio.netty;

import io.netty.handler.codec.CorruptedFrameException;
import io.thriftnio.core.wire.Envelope;
import org.apache.thrift.protocol.TMessage;

/**
 * Raised by a server's {@code ThriftFrameDecoder} for a connection it cannot go on reading: first
 * bytes that match no transport the server accepts, or an unframed message that breaks its
 * protocol's encoding or the size limit. Like {@link InvalidFrameException}, the decoder discards
 * every later byte and {@link ThriftServerHandler} closes the connection after the earlier replies,
 * answering {@link #header()} first when there is one.
 */
final class InvalidMessageException extends CorruptedFrameException {
  private static final long serialVersionUID = 1L;

  private final transient TMessage header;
  private final transient Envelope envelope;

  InvalidMessageException(String message, TMessage header, Envelope envelope) {
    super(message);
    this.header = header;
    this.envelope = envelope != null ? envelope : Envelope.FRAMED;
  }

  /** How an answer to {@link #header()} leaves. */
  Envelope envelope() {
    return envelope;
  }

  /** The refused message's header, read before the fault; {@code null} if none was. */
  TMessage header() {
    return header;
  }
}
