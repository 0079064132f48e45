package io.thriftnio.netty;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.wire.Envelope;
import java.nio.ByteBuffer;

/**
 * What a server's {@link ThriftFrameDecoder} passes on besides plain frames, for {@link
 * ThriftServerHandler}: the connection's envelope once known, and answers without a call. In
 * request order, with the frames.
 */
final class WireMessages {
  private WireMessages() {}

  /**
   * Fired once, ahead of a connection's first request, when its requests are not framed but all
   * share one envelope (unframed): plain {@code ByteBuf} requests leave in it.
   */
  static final class WireDetected {
    final Envelope envelope;

    WireDetected(Envelope envelope) {
      this.envelope = envelope;
    }
  }

  /** Bytes to send without a call, in request order (an HTTP refusal, {@code 100 Continue}). */
  static final class Answer {
    final ByteBuffer bytes;
    final boolean refusal;
    final boolean closeAfter;

    Answer(ByteBuffer bytes, boolean refusal, boolean closeAfter) {
      this.bytes = bytes;
      this.refusal = refusal;
      this.closeAfter = closeAfter;
    }
  }

  /**
   * The connection's handshake of its wire kind's own failed (a SASL negotiation): send {@code
   * answer}, close, and count it as {@code cause}.
   */
  static final class HandshakeFailed {
    final ByteBuffer answer;
    final CloseCause cause;

    HandshakeFailed(ByteBuffer answer, CloseCause cause) {
      this.answer = answer;
      this.cause = cause;
    }
  }
}
