package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.thriftnio.core.util.internal.Framing;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * Thrift's framed transport on a Netty pipeline of your own, before a {@link ThriftServerHandler}:
 * splits the byte stream into request frames (a signed 4-byte big-endian length that does not count
 * itself, then the message) and prefixes each response with its length, as Grizzly's {@code
 * ThriftFrameFilter} does in a filter chain.
 *
 * <pre>{@code
 * ch.pipeline().addLast(
 *     ThriftFrameCodec.server(),
 *     new ThriftServerHandler(processor, new TCompactProtocol.Factory()));
 * }</pre>
 *
 * <p>A request length of 0 or less, or above {@code maxFrameSize}, is refused as soon as its four
 * bytes arrive, before anything is allocated for the frame: the codec logs one line naming the
 * peer, the length, the limit and, when the bytes look like another protocol ({@code GET }, {@code
 * SSH-}, a TLS ClientHello), what arrived; then it raises a Netty {@code CorruptedFrameException},
 * caused by a {@code TTransportException} of type {@code CORRUPTED_DATA}, through {@code
 * exceptionCaught} and discards every later byte of the connection ({@link ThriftServerHandler}
 * then closes it, after answering the request's header if it was read). A response that is empty or
 * above {@code maxFrameSize} fails its write instead of sending a frame no peer would accept.
 * Request frames are zero-copy slices of the receive buffer; response payloads are not copied
 * either (the prefix goes out by a gathering write).
 *
 * <p>Not {@code @Sharable}: one codec per channel, since it holds the partial frame.
 */
public final class ThriftFrameCodec
    extends CombinedChannelDuplexHandler<ByteToMessageDecoder, MessageToMessageEncoder<ByteBuf>> {

  private ThriftFrameCodec(int maxFrameSize, TProtocolFactory headerProtocol) {
    super(
        ThriftFrameDecoder.server(maxFrameSize, headerProtocol),
        new ThriftFrameEncoder(maxFrameSize));
  }

  /**
   * A server's codec with libthrift's default limit, 16,384,000 bytes, that does not read the
   * headers of oversize requests.
   */
  public static ThriftFrameCodec server() {
    return server(Framing.DEFAULT_MAX_FRAME_SIZE, null);
  }

  /**
   * A server's codec of framed requests and responses.
   *
   * @param maxFrameSize the largest payload accepted and sent, in bytes; must be positive
   * @param headerProtocol the protocol of the requests, used to read the message header of an
   *     oversize request so that it can be answered; {@code null} to skip that
   * @throws IllegalArgumentException if {@code maxFrameSize <= 0}
   */
  public static ThriftFrameCodec server(int maxFrameSize, TProtocolFactory headerProtocol) {
    return new ThriftFrameCodec(maxFrameSize, headerProtocol);
  }

  /** The largest payload accepted and sent, in bytes. */
  public int maxFrameSize() {
    return decoder().maxFrameSize();
  }

  /** The decoder inside, for the connection's frame timeout. */
  ThriftFrameDecoder decoder() {
    return (ThriftFrameDecoder) inboundHandler();
  }
}
