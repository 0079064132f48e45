package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.Envelope;
import io.thriftnio.core.wire.Refusal;
import io.thriftnio.core.wire.ReplyEvent;
import io.thriftnio.core.wire.ServerCodec;
import io.thriftnio.core.wire.WireEvent;
import io.thriftnio.core.wire.WireMessage;
import io.thriftnio.core.wire.WireSettings;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * Splits a byte stream into Thrift messages, following the wire rules of Thrift's framed transport
 * (a signed 4-byte big-endian length that does not count itself, then the message; a length of 0 or
 * less, or above {@code maxFrameSize}, closes the connection): the Netty binding of thrift-nio
 * core's wire decoders. Each frame is passed on as a {@link ByteBuf} holding its payload, without
 * the length prefix:
 *
 * <pre>
 * BEFORE DECODE (14 bytes, in any number of reads)      AFTER DECODE (2 frames)
 * +----------+-----------------+----------+--------+    +-----------------+ +--------+
 * | 00000005 | 80 01 00 01 ... | 00000001 | 0c     | =&gt; | 80 01 00 01 ... | | 0c     |
 * +----------+-----------------+----------+--------+    +-----------------+ +--------+
 *   length 5   payload (5 B)     length 1   payload        frame 1             frame 2
 * </pre>
 *
 * <p>Public as {@link ThriftFrameCodec}, for a pipeline of your own. One decoder per channel, for
 * one role: {@link #server()} for requests, {@link #client()} for replies. The length is a signed
 * 32-bit big-endian integer that does not count itself. A length {@code <= 0} or above {@code
 * maxFrameSize} is rejected as soon as its four bytes arrive, before anything is allocated for the
 * frame: the decoder logs one line naming the peer, the length, the limit and, when the bytes look
 * like another protocol ({@code GET }, {@code SSH-}, a TLS ClientHello), what arrived; then it
 * raises a Netty {@code CorruptedFrameException}, caused by a {@code TTransportException} of type
 * {@code CORRUPTED_DATA}, through {@code exceptionCaught} and discards every later byte of the
 * connection. A server decoder given the requests' protocol first tries to read the message header
 * of a frame that is too large from the bytes that arrived with its length (it never waits for
 * more), and the exception carries it, so that the server can answer that sequence id with a {@code
 * TApplicationException}.
 *
 * <p>In a {@link NettyThriftServer}, the decoder also reads the other wire kinds the server accepts
 * ({@link ServerBuilder#wireKinds}): the first bytes of the connection pick one (core's sniffer),
 * and each request is passed on whole, with how its reply must leave (unframed, an HTTP response).
 *
 * <p>Frames are zero-copy: each is a retained slice of the decoder's cumulation buffer. The
 * receiver owns it and must release it. Memory grows with the bytes received, never with the length
 * declared.
 *
 * <h2>Pitfalls</h2>
 *
 * <ul>
 *   <li>The decoder does not close the connection on a bad frame; the handler after it must, on
 *       that {@code CorruptedFrameException}. {@link ThriftServerHandler} does (after answering the
 *       header, if any); the clients of this package do. A pipeline that only logs leaves an open
 *       connection whose every byte is discarded.
 *   <li>A frame slice keeps the whole cumulation buffer alive until released. A handler that holds
 *       a frame for a long time (a slow call) holds the receive buffer it was sliced from; copy the
 *       payload if you keep it beyond the call.
 *   <li>The slices share memory with the cumulation. Netty's cumulators never move or overwrite
 *       bytes that a live slice covers, so the slices stay valid; a custom cumulator must keep that
 *       promise.
 *   <li>Not {@code @Sharable}: one decoder per channel, since it holds the partial frame.
 *   <li>An input shutdown in the middle of a frame drops the partial frame silently (it is logged
 *       at debug level): the peer went away, there is no one to answer.
 * </ul>
 */
final class ThriftFrameDecoder extends ByteToMessageDecoder {

  private final int maxFrameSize;
  private final WireSettings settings;
  private final Runnable truncatedFrameListener;
  private final NettyBytes bytes = new NettyBytes();

  // The codecs and the flag are confined to the channel's event loop, like every decoder's state.

  /** The server's codec, made at the first read (it names the peer); {@code null} on a client. */
  private ServerCodec server;

  /** The client's codec; on a decoder of the user's own, made at the first read. */
  private ClientCodec client;

  /**
   * Whether the connection's envelope was told to the handler ({@link WireMessages.WireDetected}).
   */
  private boolean announced;

  private ThriftFrameDecoder(
      int maxFrameSize, WireSettings settings, Runnable truncated, ClientCodec client) {
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    this.settings = settings;
    this.truncatedFrameListener = truncated;
    this.client = client;
  }

  /**
   * A server's decoder with libthrift's default limit, 16,384,000 bytes, that does not read the
   * headers of oversize frames.
   */
  static ThriftFrameDecoder server() {
    return server(Framing.DEFAULT_MAX_FRAME_SIZE, null);
  }

  /**
   * A server's decoder of framed requests.
   *
   * @param maxFrameSize the largest payload accepted, in bytes; must be positive
   * @param headerProtocol the protocol of the requests, used to read the message header of an
   *     oversize frame so that it can be answered; {@code null} to skip that
   * @throws IllegalArgumentException if {@code maxFrameSize <= 0}
   */
  static ThriftFrameDecoder server(int maxFrameSize, TProtocolFactory headerProtocol) {
    WireSettings settings =
        WireSettings.of(
            maxFrameSize,
            EnumSet.of(WireKind.FRAMED),
            headerProtocol,
            ServerBuilder.DEFAULT_HTTP_PATH);
    return new ThriftFrameDecoder(maxFrameSize, settings, () -> {}, null);
  }

  /**
   * For {@link NettyThriftServer}: every kind {@code settings} accepts.
   *
   * @param truncatedFrameListener runs once when the input ends in the middle of a message
   */
  static ThriftFrameDecoder server(WireSettings settings, Runnable truncatedFrameListener) {
    return new ThriftFrameDecoder(settings.maxFrameSize(), settings, truncatedFrameListener, null);
  }

  /** A client's decoder of framed replies with the default limit. */
  static ThriftFrameDecoder client() {
    return client(Framing.DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * A client's decoder of framed replies: nobody to answer, so no header is read.
   *
   * @param maxFrameSize the largest payload accepted, in bytes; must be positive
   * @throws IllegalArgumentException if {@code maxFrameSize <= 0}
   */
  static ThriftFrameDecoder client(int maxFrameSize) {
    return new ThriftFrameDecoder(maxFrameSize, null, () -> {}, null);
  }

  /**
   * For this package's clients: the replies of {@code codec}'s transport. Besides each reply's
   * payload, it passes on a {@link ReplyEvent} for what else a reply says (an HTTP status that
   * fails its call, a connection the server ends after it), and a reply it cannot read as a {@code
   * ReplyEvent} that ends the connection.
   */
  static ThriftFrameDecoder client(ClientCodec codec, int maxFrameSize) {
    return new ThriftFrameDecoder(maxFrameSize, null, () -> {}, codec);
  }

  /** The largest payload accepted, in bytes. */
  int maxFrameSize() {
    return maxFrameSize;
  }

  /**
   * When the request being received started to arrive ({@link System#nanoTime()}), or 0 if none is
   * incomplete. Used by the server's frame timeout.
   */
  long partialSinceNanos() {
    return server == null ? 0 : server.partialSinceNanos();
  }

  /**
   * The server closes the connection for its own reasons (a timeout): the partial frame, if any, is
   * dropped without counting it as the peer's.
   */
  void discardRest() {
    if (server != null) {
      server.discardRest();
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws CorruptedFrameException {
    if (settings != null) {
      if (server == null) {
        server = new ServerCodec(settings, ctx.channel().remoteAddress());
      }
      decodeRequest(ctx, in, out);
    } else {
      if (client == null) {
        client = ClientCodec.framed(maxFrameSize, ctx.channel().remoteAddress());
      }
      decodeReply(ctx, in, out);
    }
  }

  /** One step: each event is passed on in order (the messages of a step before its events). */
  private WireEvent decodeRequest(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws InvalidFrameException {
    int start = in.readerIndex();
    WireEvent event = server.next(bytes.of(in), start, in.readableBytes());
    Decoded d = server.decoded();
    if (!announced && server.kind() != null) {
      announced = true;
      Envelope shared = server.envelope();
      if (shared != null && shared != Envelope.FRAMED) {
        ctx.fireChannelRead(new WireMessages.WireDetected(shared)); // ahead of the request
      }
    }
    switch (event) {
      case MESSAGE:
        if (d.envelope() == Envelope.FRAMED || d.envelope() == server.envelope()) {
          out.add(payload(in, start, d));
        } else if (d.payloadArray() != null) {
          out.add(WireMessage.request(null, d.payloadArray(), d.envelope()));
        } else {
          out.add(WireMessage.request(payload(in, start, d), null, d.envelope()));
        }
        in.skipBytes(d.consumed());
        return event;
      case ANSWER:
        in.skipBytes(d.consumed());
        // Read at once, not through out: Netty's decoder refuses a message that consumed nothing.
        ctx.fireChannelRead(
            new WireMessages.Answer(d.answer(), d.refusesRequest(), d.closeAfter() != null));
        return event;
      case REFUSED:
        in.skipBytes(in.readableBytes());
        refuse(ctx, d.refusal());
        return event;
      case AWAIT:
        in.skipBytes(d.consumed());
        Runnable step = d.step();
        d.awaited().whenComplete((done, failed) -> ctx.executor().execute(() -> wakeUp(ctx)));
        if (step != null) {
          step.run(); // on the event loop, under no lock: it may call the application's executor
        }
        return event;
      default:
        if (server.rejected()) {
          in.skipBytes(in.readableBytes()); // what follows a refusal, or the last request
        }
        return event;
    }
  }

  /**
   * What the wire awaited ({@code WireEvent.AWAIT}: a SASL step, a negotiation's deadline) is done:
   * decodes again with what is buffered, as a read would, and passes the events on.
   */
  private void wakeUp(ChannelHandlerContext ctx) {
    if (ctx.isRemoved() || !ctx.channel().isActive()) {
      return; // closed meanwhile: decodeLast has ended the wire
    }
    ByteBuf in = internalBuffer();
    List<Object> out = new ArrayList<>(2);
    try {
      WireEvent event;
      do {
        event = decodeRequest(ctx, in, out);
        for (Object message : out) {
          ctx.fireChannelRead(message);
        }
        out.clear();
      } while ((event == WireEvent.MESSAGE || event == WireEvent.ANSWER)
          && ctx.channel().isActive());
    } catch (InvalidFrameException e) {
      ctx.fireExceptionCaught(e);
    }
    ctx.fireChannelReadComplete();
  }

  private static void refuse(ChannelHandlerContext ctx, Refusal refusal)
      throws InvalidFrameException {
    if (refusal.closeCause() != null) {
      ctx.fireChannelRead(new WireMessages.HandshakeFailed(refusal.answer(), refusal.closeCause()));
    } else if (refusal.answer() != null) {
      ctx.fireChannelRead(new WireMessages.Answer(refusal.answer(), true, true));
    } else if (refusal.frameSize() != null) {
      throw new InvalidFrameException(refusal.frameSize(), refusal.header());
    } else {
      throw new InvalidMessageException(refusal.reason(), refusal.header(), refusal.envelope());
    }
  }

  private void decodeReply(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws InvalidFrameException {
    int start = in.readerIndex();
    WireEvent event = client.next(bytes.of(in), start, in.readableBytes());
    Decoded d = client.decoded();
    switch (event) {
      case MESSAGE:
        out.add(payload(in, start, d));
        break;
      case REFUSED:
        in.skipBytes(in.readableBytes());
        if (d.refusal().frameSize() != null) {
          throw new InvalidFrameException(d.refusal().frameSize(), null);
        }
        out.add(ReplyEvent.of(d));
        return;
      case NEED_MORE:
        if (client.rejected()) {
          in.skipBytes(in.readableBytes());
        }
        return;
      default:
        break;
    }
    in.skipBytes(d.consumed());
    ReplyEvent after = ReplyEvent.of(d);
    if (after != null) {
      out.add(after);
    }
  }

  private static ByteBuf payload(ByteBuf in, int start, Decoded d) {
    byte[] array = d.payloadArray();
    return array != null
        ? Unpooled.wrappedBuffer(array)
        : in.retainedSlice(start + d.payloadOffset(), d.payloadLength());
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Exception {
    super.decodeLast(ctx, in, out);
    if (server != null) {
      if (server.endOfInput()) {
        truncatedFrameListener.run();
      }
    } else if (client != null
        && client.endOfStream(bytes.of(in), in.readerIndex(), in.readableBytes())
            != WireEvent.NEED_MORE) {
      Decoded d = client.decoded();
      if (d.event() == WireEvent.MESSAGE) {
        out.add(payload(in, in.readerIndex(), d));
      }
      ReplyEvent after = ReplyEvent.of(d);
      if (after != null) {
        out.add(after);
      }
    }
    in.skipBytes(in.readableBytes());
  }
}
