package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.internal.UnframedMessages;
import io.thriftnio.core.internal.client.UnframedReplies;
import io.thriftnio.core.internal.server.HeaderPeek;
import io.thriftnio.core.internal.server.HttpRequestReader;
import io.thriftnio.core.internal.server.HttpResponses;
import io.thriftnio.core.internal.server.WireKind;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a byte stream into Thrift frames ({@code TFramedTransport}), following the wire rules of
 * {@link Framing}. Each frame is passed on as a {@link ByteBuf} holding its payload, without the
 * length prefix:
 *
 * <pre>
 * BEFORE DECODE (14 bytes, in any number of reads)      AFTER DECODE (2 frames)
 * +----------+-----------------+----------+--------+    +-----------------+ +--------+
 * | 00000005 | 80 01 00 01 ... | 00000001 | 0c     | =&gt; | 80 01 00 01 ... | | 0c     |
 * +----------+-----------------+----------+--------+    +-----------------+ +--------+
 *   length 5   payload (5 B)     length 1   payload        frame 1             frame 2
 * </pre>
 *
 * <p>The length is a signed 32-bit big-endian integer that does not count itself. A length {@code
 * <= 0} or above {@code maxFrameSize} is rejected as soon as its four bytes arrive, before anything
 * is allocated for the frame: the decoder logs one line naming the peer, the length, the limit and,
 * when the bytes look like another protocol ({@code GET }, {@code SSH-}, a TLS ClientHello), what
 * arrived; then it raises an {@link InvalidFrameException} through {@code exceptionCaught} and
 * discards every later byte of the connection. When a protocol factory is given and the frame is
 * too large, the decoder first tries to read the message header from the bytes that arrived with
 * the length (it never waits for more: a hostile peer would hold the connection open), and the
 * exception carries it, so a server can answer that sequence id with a {@code
 * TApplicationException}.
 *
 * <p>In a {@link NettyThriftServer} that accepts {@link io.thriftnio.core.WireTransport#UNFRAMED}
 * peers ({@link io.thriftnio.core.ServerBuilder#transports}), the first byte of the connection
 * decides: a length prefix is framed as above; a strict-binary ({@code 80 01}), compact ({@code
 * 82}) or JSON ({@code [}) message start makes the connection unframed, and each message is passed
 * on whole, the same way, once its last byte has arrived (its end found by walking its encoding,
 * resumed on each read; a declared size that would exceed {@code maxFrameSize} is refused as soon
 * as it is read). First bytes of no accepted transport, and an invalid unframed message, raise an
 * exception the server's handler answers and closes on, like an invalid frame. An upper-case first
 * byte, when {@link io.thriftnio.core.WireTransport#HTTP} is accepted, makes the connection HTTP:
 * each request is read by core's {@code HttpRequestReader} (bounded header section, {@code
 * Content-Length} or chunked body up to {@code maxFrameSize}), nothing consumed before it is whole,
 * and its body passed on with what its answer needs; a refused request and a {@code 100 Continue}
 * go to the handler as events, in request order.
 *
 * <p>Frames are zero-copy: each is a retained slice of the decoder's cumulation buffer. The
 * receiver owns it and must release it. Memory grows with the bytes received, never with the length
 * declared.
 *
 * <h2>Pitfalls</h2>
 *
 * <ul>
 *   <li>The decoder does not close the connection on a bad frame; the handler after it must, on
 *       {@link InvalidFrameException}. {@link ThriftServerHandler} does (after answering the
 *       header, if any); the clients of this package do. A pipeline that only logs leaves an open
 *       connection whose every byte is discarded.
 *   <li>A frame slice keeps the whole cumulation buffer alive until released. A handler that holds
 *       a frame for a long time (a slow call) holds the receive buffer it was sliced from; copy the
 *       payload if you keep it beyond the call.
 *   <li>The slices share memory with the cumulation. Netty's cumulators never move or overwrite
 *       bytes that a live slice covers (they append after them, or copy into a new buffer, and
 *       discard read bytes only when no slice is alive), so the slices stay valid; a custom
 *       cumulator must keep that promise.
 *   <li>Not {@code @Sharable}: one decoder per channel, since it holds the partial frame.
 *   <li>An input shutdown in the middle of a frame drops the partial frame silently (it is logged
 *       at debug level): the peer went away, there is no one to answer.
 * </ul>
 */
public final class ThriftFrameDecoder extends ByteToMessageDecoder {

  private static final Logger log = LoggerFactory.getLogger(ThriftFrameDecoder.class);

  private final int maxFrameSize;
  private final TProtocolFactory headerProtocol;
  private final Runnable truncatedFrameListener;
  private final Set<WireTransport> accepted;
  private boolean rejected;

  /** The connection's kind, once its first byte is here; FRAMED from the start if alone. */
  private WireKind kind;

  /** Finds each message's end on an unframed connection; null on a framed one. */
  private UnframedMessages walk;

  /** Reads each request on an HTTP connection; null on another. */
  private HttpRequestReader http;

  private final String httpPath;

  /**
   * A decoder with libthrift's default limit, {@value Framing#DEFAULT_MAX_FRAME_SIZE} bytes, that
   * does not read the headers of oversize frames.
   */
  public ThriftFrameDecoder() {
    this(Framing.DEFAULT_MAX_FRAME_SIZE, null);
  }

  /**
   * A decoder that does not read the headers of oversize frames (for clients: nobody to answer).
   *
   * @param maxFrameSize the largest payload accepted, in bytes; must be positive
   */
  public ThriftFrameDecoder(int maxFrameSize) {
    this(maxFrameSize, null);
  }

  /**
   * A decoder for servers.
   *
   * @param maxFrameSize the largest payload accepted, in bytes; must be positive
   * @param headerProtocol the protocol of the requests, used to read the message header of an
   *     oversize frame so that it can be answered; {@code null} to skip that
   */
  public ThriftFrameDecoder(int maxFrameSize, TProtocolFactory headerProtocol) {
    this(maxFrameSize, headerProtocol, () -> {});
  }

  /**
   * A decoder for the server, which counts connections that end inside a frame.
   *
   * @param truncatedFrameListener runs once when the input ends in the middle of a frame
   */
  ThriftFrameDecoder(
      int maxFrameSize, TProtocolFactory headerProtocol, Runnable truncatedFrameListener) {
    this(maxFrameSize, headerProtocol, truncatedFrameListener, EnumSet.of(WireTransport.FRAMED));
  }

  /**
   * A decoder for a server that accepts the {@code accepted} transports on its port: the first byte
   * of the connection says which one it speaks ({@link WireKind#detect}). An unframed message is
   * passed on whole, as a frame's payload is, its end found by core's {@link UnframedMessages} with
   * {@code maxFrameSize} as the largest message; a {@link WireDetected} event goes ahead of it so
   * that the handler sends its replies unframed.
   */
  ThriftFrameDecoder(
      int maxFrameSize,
      TProtocolFactory headerProtocol,
      Runnable truncatedFrameListener,
      Set<WireTransport> accepted) {
    this(
        maxFrameSize,
        headerProtocol,
        truncatedFrameListener,
        accepted,
        ServerBuilder.DEFAULT_HTTP_PATH);
  }

  /**
   * As above, with {@link WireTransport#HTTP} peers posting to {@code httpPath}: each request's
   * body is passed on as an {@link HttpRequestMessage}, and a request refused (or a {@code 100
   * Continue} due) as an {@link HttpResponseEvent}.
   */
  ThriftFrameDecoder(
      int maxFrameSize,
      TProtocolFactory headerProtocol,
      Runnable truncatedFrameListener,
      Set<WireTransport> accepted,
      String httpPath) {
    this.httpPath = httpPath;
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    this.headerProtocol = headerProtocol;
    this.truncatedFrameListener = truncatedFrameListener;
    this.accepted = Collections.unmodifiableSet(EnumSet.copyOf(accepted));
    if (this.accepted.equals(Set.of(WireTransport.FRAMED))) {
      this.kind = WireKind.FRAMED; // nothing to detect: foreign bytes meet the framing rules
    }
  }

  /**
   * A decoder for a client of an unframed server: each reply is passed on whole once walked (its
   * encoding told by the first reply's first byte), and a connection that ends inside a reply
   * raises an {@code END_OF_FILE} {@code TTransportException} that names the bytes received, so
   * that waiting callers learn more than "closed".
   */
  static ThriftFrameDecoder forUnframedReplies(int maxFrameSize) {
    ThriftFrameDecoder decoder =
        new ThriftFrameDecoder(maxFrameSize, null, () -> {}, EnumSet.of(WireTransport.UNFRAMED));
    decoder.replies = true;
    return decoder;
  }

  /** Whether a client's replies are decoded ({@link #forUnframedReplies}). */
  private boolean replies;

  /**
   * Fired once, ahead of a connection's first request, when the connection turns out to be
   * unframed: its replies must leave without the length prefix.
   */
  static final class WireDetected {
    final WireKind kind;

    WireDetected(WireKind kind) {
      this.kind = kind;
    }
  }

  /** One HTTP request's body, with what its answer needs; the receiver releases {@link #body}. */
  static final class HttpRequestMessage {
    final ByteBuf body;
    final HttpRequestReader.Request request;

    HttpRequestMessage(ByteBuf body, HttpRequestReader.Request request) {
      this.body = body;
      this.request = request;
    }
  }

  /** An HTTP response without a call, in request order: a refusal or {@code 100 Continue}. */
  static final class HttpResponseEvent {
    final ByteBuffer response;
    final boolean refusal;
    final boolean closeAfter;

    HttpResponseEvent(ByteBuffer response, boolean refusal, boolean closeAfter) {
      this.response = response;
      this.refusal = refusal;
      this.closeAfter = closeAfter;
    }
  }

  /** The largest payload accepted, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /**
   * Whether bytes of an incomplete frame are buffered: a frame has started and not finished. Used
   * by the server's frame timeout.
   */
  boolean hasPartialFrame() {
    return !rejected && internalBuffer().isReadable();
  }

  /**
   * The server closes the connection for its own reasons (a timeout): the partial frame, if any, is
   * dropped without counting it as the peer's.
   */
  void discardRest() {
    rejected = true;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws InvalidFrameException {
    if (rejected) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (kind == null) {
      if (!in.isReadable()) {
        return;
      }
      kind = WireKind.detect(in.getByte(in.readerIndex()), accepted);
      if (kind == null) {
        failOnUnknownTransport(ctx, in);
        return;
      }
      if (kind.unframed()) {
        walk = kind.newWalk(maxFrameSize);
        ctx.fireUserEventTriggered(new WireDetected(kind));
      } else if (kind.http()) {
        http = new HttpRequestReader(httpPath, maxFrameSize);
        ctx.fireUserEventTriggered(new WireDetected(kind));
      }
    }
    if (http != null) {
      decodeHttp(ctx, in, out);
      return;
    }
    if (walk != null) {
      decodeUnframed(ctx, in, out);
      return;
    }
    if (in.readableBytes() < Framing.HEADER_SIZE) {
      return;
    }
    int length = in.getInt(in.readerIndex());
    if (length <= 0 || length > maxFrameSize) {
      failOnInvalidLength(ctx, in, length);
      return;
    }
    if (in.readableBytes() - Framing.HEADER_SIZE < length) {
      return;
    }
    in.skipBytes(Framing.HEADER_SIZE);
    out.add(in.readRetainedSlice(length));
  }

  private void decodeUnframed(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws InvalidMessageException {
    int length;
    try {
      length = walk.next(in::getByte, in.readerIndex(), in.readableBytes());
    } catch (UnframedMessages.InvalidMessageException e) {
      rejected = true;
      in.skipBytes(in.readableBytes());
      String reason = e.describe(walk.protocol(), ctx.channel().remoteAddress());
      log.warn("Invalid message, the connection must close: {}", reason);
      throw new InvalidMessageException(reason, e.header());
    }
    if (length != UnframedMessages.NEED_MORE) {
      walk.reset();
      out.add(in.readRetainedSlice(length));
    }
  }

  private void decodeHttp(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int length;
    try {
      length = http.next(in::getByte, in.readerIndex(), in.readableBytes());
    } catch (HttpRequestReader.Refused e) {
      rejected = true;
      in.skipBytes(in.readableBytes());
      log.warn("{}", e.describe(ctx.channel().remoteAddress()));
      ctx.fireUserEventTriggered(new HttpResponseEvent(e.response(), true, true));
      return;
    }
    if (length == HttpRequestReader.NEED_MORE) {
      if (http.takeContinue()) {
        ctx.fireUserEventTriggered(
            new HttpResponseEvent(HttpResponses.continue100(), false, false));
      }
      return;
    }
    HttpRequestReader.Request request = http.request();
    if (!request.keepAlive()) {
      rejected = true; // nothing after this request is read: the connection closes after it
    }
    if (request.refusal() != 0) {
      in.skipBytes(length);
      http.reset();
      log.debug(
          "HTTP request from {} refused with {}", ctx.channel().remoteAddress(), request.refusal());
      ctx.fireUserEventTriggered(
          new HttpResponseEvent(request.refusalResponse(), true, !request.keepAlive()));
      return;
    }
    ByteBuf body;
    if (http.chunked()) {
      byte[] bytes = new byte[http.bodyLength()];
      http.copyBody(in::getByte, in.readerIndex(), bytes);
      body = Unpooled.wrappedBuffer(bytes);
      in.skipBytes(length);
    } else {
      in.skipBytes(http.bodyStart());
      body = in.readRetainedSlice(http.bodyLength());
      in.skipBytes(length - http.bodyStart() - http.bodyLength());
    }
    http.reset();
    out.add(new HttpRequestMessage(body, request));
  }

  private void failOnUnknownTransport(ChannelHandlerContext ctx, ByteBuf in)
      throws InvalidMessageException {
    String reason =
        replies
            ? UnframedReplies.notAReplyReason(
                ctx.channel().remoteAddress(), in.getByte(in.readerIndex()))
            : WireKind.describeRefusal(
                in::getByte,
                in.readerIndex(),
                in.readableBytes(),
                accepted,
                ctx.channel().remoteAddress());
    rejected = true;
    in.skipBytes(in.readableBytes());
    log.warn("{}", reason);
    throw new InvalidMessageException(reason, null);
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Exception {
    super.decodeLast(ctx, in, out);
    if (!rejected && in.isReadable()) {
      int received = in.readableBytes();
      log.debug(
          "Connection from {} ended inside a frame: {} bytes of it dropped",
          ctx.channel().remoteAddress(),
          received);
      in.skipBytes(received);
      truncatedFrameListener.run();
      if (replies) {
        ctx.fireExceptionCaught(
            UnframedReplies.truncated(ctx.channel().remoteAddress(), received, maxFrameSize));
      }
    }
  }

  private void failOnInvalidLength(ChannelHandlerContext ctx, ByteBuf in, int length)
      throws InvalidFrameException {
    TMessage header = null;
    if (length > maxFrameSize && headerProtocol != null) {
      int buffered = in.readableBytes() - Framing.HEADER_SIZE;
      header =
          HeaderPeek.read(
              in::getBytes, in.readerIndex() + Framing.HEADER_SIZE, buffered, headerProtocol);
    }
    rejected = true;
    in.skipBytes(in.readableBytes());
    FrameSizeException cause =
        new FrameSizeException(length, maxFrameSize, ctx.channel().remoteAddress());
    if (header != null) {
      log.warn(
          "Invalid frame, the connection must close: {} (its header: {} seqid {})",
          cause.getMessage(),
          header.name,
          header.seqid);
    } else {
      log.warn("Invalid frame, the connection must close: {}", cause.getMessage());
    }
    throw new InvalidFrameException(cause, header);
  }
}
