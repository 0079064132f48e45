package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import javax.security.sasl.SaslException;
import org.apache.thrift.transport.TTransportException;

/**
 * {@link WireKind#SASL}: the negotiation's messages, whole; then frames, each request wrapped and
 * each reply unwrapped by the {@link #saslLayer()} the negotiation completes (when its quality of
 * protection says so), behind a 4-byte length.
 */
public final class SaslClientCodec extends ReplyReader {

  private final SaslLayer layer;
  private final int maxFrameSize;

  SaslClientCodec(int maxFrameSize, InetSocketAddress address, String peer, String mechanism) {
    this(new SaslLayer(), maxFrameSize, address, peer, mechanism);
  }

  private SaslClientCodec(
      SaslLayer layer, int maxFrameSize, InetSocketAddress address, String peer, String mechanism) {
    super(new SaslReplyDecoder(maxFrameSize, address, peer, mechanism, layer), peer);
    this.layer = layer;
    this.maxFrameSize = maxFrameSize;
  }

  /** The connection's security layer, which the negotiation completes. */
  public SaslLayer saslLayer() {
    return layer;
  }

  @Override
  public WireKind wireKind() {
    return WireKind.SASL;
  }

  @Override
  public ByteBuffer wrap(ByteBuffer message) throws SaslException, TTransportException {
    if (!layer.wraps()) {
      return message;
    }
    byte[] plain = new byte[message.remaining()];
    message.duplicate().get(plain);
    byte[] wrapped = layer.wrap(plain, 0, plain.length);
    if (wrapped.length > maxFrameSize) {
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "request to "
              + peer()
              + " of "
              + plain.length
              + " bytes is "
              + wrapped.length
              + " bytes wrapped by SASL (expected: <= maxFrameSize "
              + maxFrameSize
              + ")");
    }
    return ByteBuffer.wrap(wrapped);
  }

  @Override
  public byte[] head(
      ByteBuffer message,
      boolean oneway,
      Map<String, String> headers,
      int seqId,
      long timeoutMillis) {
    return FramedClientCodec.lengthPrefix(message.remaining());
  }
}
