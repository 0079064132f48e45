package io.thriftnio.netty;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.wire.Envelope;
import java.nio.ByteBuffer;

/**
 * What a server's {@code ThriftFrameDecoder} passes on besides requests, for {@link
 * ThriftServerHandler}: the connection's envelope once known, and answers without a call. Read
 * messages like the requests ({@code fireChannelRead}), so they keep request order with them on the
 * pipeline; a handler between the two passes them on as it passes requests.
 */
sealed interface WireMessages {

  /**
   * Passed once, ahead of a connection's first request, when its requests are not framed but all
   * share one envelope (unframed): plain {@code ByteBuf} requests leave in it.
   */
  record WireDetected(Envelope envelope) implements WireMessages {}

  /**
   * Bytes to send without a call, in request order (an HTTP refusal, {@code 100 Continue}).
   *
   * @param refusal whether the bytes answer a request that is refused
   * @param closeAfter whether the connection closes once they are sent
   */
  record Answer(ByteBuffer bytes, boolean refusal, boolean closeAfter) implements WireMessages {}

  /**
   * The connection's handshake of its wire kind's own failed (a SASL negotiation): send {@code
   * answer}, close, and count it as {@code cause}.
   */
  record HandshakeFailed(ByteBuffer answer, CloseCause cause) implements WireMessages {}
}
