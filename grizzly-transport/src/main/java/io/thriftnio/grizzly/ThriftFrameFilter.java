package io.thriftnio.grizzly;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.internal.UnframedMessages;
import io.thriftnio.core.internal.client.UnframedReplies;
import io.thriftnio.core.internal.server.HeaderPeek;
import io.thriftnio.core.internal.server.HttpRequestReader;
import io.thriftnio.core.internal.server.HttpResponses;
import io.thriftnio.core.internal.server.ReadActivity;
import io.thriftnio.core.internal.server.WireKind;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.Filter;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the bytes read from a connection into Thrift frames ({@code TFramedTransport}), following
 * the {@linkplain Framing wire rules}.
 *
 * <pre>
 * bytes read (any split, any coalescing):
 *   | 00 00 00 0B | 11 payload bytes | 00 00 00 05 | 5 payload bytes | 00 00 ...
 *
 * messages passed to the next filter, one per frame, prefix removed:
 *   [ 11 payload bytes ]   [ 5 payload bytes ]   (the trailing 00 00 ... waits for more bytes)
 * </pre>
 *
 * <p>The message handed to the next filter's {@code handleRead} is a Grizzly {@link Buffer} whose
 * position is the first payload byte and whose limit is the end of the frame. It is a view of the
 * bytes read (split off, not copied) when the frame arrived in one read; a frame that spanned reads
 * arrives as Grizzly's composite of those reads. The filter never disposes the buffers it passes
 * on, so a handler may keep them until it has answered.
 *
 * <p>Behaviour:
 *
 * <ul>
 *   <li>An incomplete frame (or fewer than four bytes) is kept by the chain and completed by the
 *       next read (Grizzly's stop action with remainder); nothing is allocated in proportion to the
 *       declared length.
 *   <li>Several frames in one read are all delivered, one after another (invoke action with the
 *       remainder).
 *   <li>A length {@code <= 0} or {@code > maxFrameSize} is rejected as soon as the four length
 *       bytes are present: one WARN log line per connection with the peer, the length, the limit
 *       and, when recognised, what the bytes look like ({@link Framing#describeForeignBytes}, e.g.
 *       an HTTP request); then the connection is closed. Other connections are not affected.
 *   <li>In a server's chain (a {@link ThriftServerFilter} after this filter) the connection is not
 *       closed at once: the server filter answers every call received before the bad frame, then
 *       closes. For a frame that is too large, {@link GrizzlyThriftServer} also reads the message
 *       header from the bytes that arrived with the length (never waiting for more), and the caller
 *       gets a {@code TApplicationException(PROTOCOL_ERROR)} for that sequence id after those
 *       earlier responses.
 * </ul>
 *
 * <p>In a {@link GrizzlyThriftServer} that accepts {@link io.thriftnio.core.WireTransport#UNFRAMED}
 * peers ({@link io.thriftnio.core.ServerBuilder#transports}), the first byte of each connection
 * decides: a length prefix is framed as above; a strict-binary ({@code 80 01}), compact ({@code
 * 82}) or JSON ({@code [}) message start makes the connection unframed, and each message is passed
 * on whole, the same way (its end found by walking its encoding, resumed on each read; a declared
 * size that would exceed {@code maxFrameSize} is refused as soon as it is read); the server then
 * writes its replies without the prefix. First bytes of no accepted transport, and an invalid
 * unframed message, close the connection as a bad frame does. With {@link
 * io.thriftnio.core.WireTransport#HTTP} accepted, an upper-case first byte makes the connection
 * HTTP: each request is read by core's {@code HttpRequestReader} and its body, copied once, passed
 * on with what its answer needs; refusals and {@code 100 Continue} go to the server filter in
 * request order.
 *
 * <p>One instance serves every connection of a filter chain: the per-connection state lives in a
 * connection {@link Attribute}. Writes pass through unchanged; whoever writes sends whole frames.
 */
public final class ThriftFrameFilter extends BaseFilter {

  private static final Logger log = LoggerFactory.getLogger(ThriftFrameFilter.class);

  private static final Attribute<ParseState> STATE =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          ThriftFrameFilter.class.getName() + ".state", ParseState::new);

  private final int maxFrameSize;
  private final TProtocolFactory headerProtocol;
  private final Runnable badFrameListener;
  private final Runnable truncatedFrameListener;
  private final Set<WireTransport> accepted;

  private final String httpPath;

  /** Nothing to detect: foreign first bytes meet the framing rules, as they always did. */
  private final boolean framedOnly;

  /** A filter with libthrift's default limit, {@value Framing#DEFAULT_MAX_FRAME_SIZE} bytes. */
  public ThriftFrameFilter() {
    this(Framing.DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * @param maxFrameSize the largest payload accepted, in bytes (the 4-byte prefix not counted)
   * @throws IllegalArgumentException if {@code maxFrameSize <= 0}
   */
  public ThriftFrameFilter(int maxFrameSize) {
    this(maxFrameSize, null, () -> {});
  }

  ThriftFrameFilter(int maxFrameSize, Runnable badFrameListener) {
    this(maxFrameSize, null, badFrameListener);
  }

  /**
   * @param headerProtocol the protocol of the requests, used to read the message header of a frame
   *     that is too large so that it can be answered; {@code null} to skip that
   * @param badFrameListener runs once for every rejected frame
   */
  ThriftFrameFilter(int maxFrameSize, TProtocolFactory headerProtocol, Runnable badFrameListener) {
    this(maxFrameSize, headerProtocol, badFrameListener, () -> {});
  }

  /**
   * @param truncatedFrameListener runs once for every connection that the peer ends (closes or
   *     resets) in the middle of a frame
   */
  ThriftFrameFilter(
      int maxFrameSize,
      TProtocolFactory headerProtocol,
      Runnable badFrameListener,
      Runnable truncatedFrameListener) {
    this(
        maxFrameSize,
        headerProtocol,
        badFrameListener,
        truncatedFrameListener,
        EnumSet.of(WireTransport.FRAMED));
  }

  /**
   * A filter for a server that accepts the {@code accepted} transports on its port: the first byte
   * of each connection says which one it speaks ({@link WireKind#detect}). An unframed message is
   * passed on whole, as a frame's payload is, its end found by core's {@link UnframedMessages} with
   * {@code maxFrameSize} as the largest message; {@link #repliesUnframed} then tells the server
   * filter to send replies without the length prefix.
   */
  ThriftFrameFilter(
      int maxFrameSize,
      TProtocolFactory headerProtocol,
      Runnable badFrameListener,
      Runnable truncatedFrameListener,
      Set<WireTransport> accepted) {
    this(
        maxFrameSize,
        headerProtocol,
        badFrameListener,
        truncatedFrameListener,
        accepted,
        ServerBuilder.DEFAULT_HTTP_PATH);
  }

  /**
   * As above, with {@link WireTransport#HTTP} peers posting to {@code httpPath}: each request's
   * body is passed on as an {@link HttpCall}; a refused request, and a {@code 100 Continue} that is
   * due, are handed to the server filter in request order.
   */
  ThriftFrameFilter(
      int maxFrameSize,
      TProtocolFactory headerProtocol,
      Runnable badFrameListener,
      Runnable truncatedFrameListener,
      Set<WireTransport> accepted,
      String httpPath) {
    this.httpPath = httpPath;
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    this.headerProtocol = headerProtocol;
    this.badFrameListener = badFrameListener;
    this.truncatedFrameListener = truncatedFrameListener;
    this.accepted = Collections.unmodifiableSet(EnumSet.copyOf(accepted));
    this.framedOnly = this.accepted.equals(EnumSet.of(WireTransport.FRAMED));
  }

  /** The largest payload accepted, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    Buffer input = ctx.getMessage();
    ParseState state = STATE.get(connection);
    if (!state.reads.beginRead(System.nanoTime())) {
      // The idle sweep closed this connection before these bytes reached us (issue 7).
      return ctx.getStopAction();
    }
    state.passedOn = false;
    NextAction next = parse(ctx, connection, input, state);
    if (!state.passedOn) {
      state.reads.endRead(System.nanoTime()); // else the next filter ends it: requestDelivered
    }
    return next;
  }

  private NextAction parse(
      FilterChainContext ctx, Connection<?> connection, Buffer input, ParseState state) {
    if (state.rejected) {
      // Bytes read after the bad frame (the rest of it, say) while the connection is closing.
      return ctx.getStopAction();
    }
    if (state.kind == null) {
      if (!input.hasRemaining()) {
        return ctx.getStopAction();
      }
      state.kind =
          framedOnly ? WireKind.FRAMED : WireKind.detect(input.get(input.position()), accepted);
      if (state.kind == null) {
        refuseTransport(ctx, input, state);
        return ctx.getStopAction();
      }
      if (state.kind.unframed()) {
        state.walk = state.kind.newWalk(maxFrameSize);
      } else if (state.kind.http()) {
        state.http = new HttpRequestReader(httpPath, maxFrameSize);
      }
    }
    if (state.http != null) {
      return parseHttp(ctx, input, state);
    }
    if (state.walk != null) {
      return parseUnframed(ctx, connection, input, state);
    }
    if (input.remaining() < Framing.HEADER_SIZE) {
      state.partial();
      return ctx.getStopAction(input);
    }
    int start = input.position();
    int length = input.getInt(start);
    try {
      Framing.checkLength(length, maxFrameSize, peerOf(connection));
    } catch (FrameSizeException e) {
      TMessage header = null;
      if (length > maxFrameSize && headerProtocol != null) {
        // Only the bytes that came with the length: waiting for more lets a peer hold us open.
        int received = input.limit() - start - Framing.HEADER_SIZE;
        header =
            HeaderPeek.read(
                (index, dst, off, n) -> {
                  for (int i = 0; i < n; i++) {
                    dst[off + i] = input.get(index + i); // absolute: the position stays
                  }
                },
                start + Framing.HEADER_SIZE,
                received,
                headerProtocol);
      }
      rejectFrame(ctx, state, e, header);
      return ctx.getStopAction();
    }
    int frameEnd = start + Framing.HEADER_SIZE + length;
    if (input.limit() < frameEnd || frameEnd < 0) {
      state.partial();
      return ctx.getStopAction(input);
    }
    state.complete();
    Buffer remainder = input.limit() > frameEnd ? input.split(frameEnd) : null;
    state.moreBuffered = remainder != null && holdsWholeFrame(remainder);
    input.position(start + Framing.HEADER_SIZE);
    ctx.setMessage(input);
    state.passedOn = true;
    return ctx.getInvokeAction(remainder);
  }

  private NextAction parseUnframed(
      FilterChainContext ctx, Connection<?> connection, Buffer input, ParseState state) {
    int start = input.position();
    int length = state.aheadLength;
    state.aheadLength = UnframedMessages.NEED_MORE;
    try {
      if (state.aheadFailure != null) {
        throw state.aheadFailure;
      }
      if (length == UnframedMessages.NEED_MORE) {
        length = state.walk.next(input::get, start, input.remaining());
      }
    } catch (UnframedMessages.InvalidMessageException e) {
      rejectMessage(ctx, state, e);
      return ctx.getStopAction();
    }
    if (length == UnframedMessages.NEED_MORE) {
      state.partial();
      return ctx.getStopAction(input);
    }
    state.walk.reset();
    state.complete();
    int end = start + length;
    Buffer remainder = input.limit() > end ? input.split(end) : null;
    state.moreBuffered = remainder != null && holdsWholeMessage(state, remainder);
    ctx.setMessage(input);
    state.passedOn = true;
    return ctx.getInvokeAction(remainder);
  }

  /** One HTTP request's body, copied out of the read buffer, and what its answer needs. */
  static final class HttpCall {
    final byte[] body;
    final HttpRequestReader.Request request;

    HttpCall(byte[] body, HttpRequestReader.Request request) {
      this.body = body;
      this.request = request;
    }
  }

  private NextAction parseHttp(FilterChainContext ctx, Buffer input, ParseState state) {
    Buffer rest = input;
    while (true) {
      int start = rest.position();
      int length;
      try {
        length = state.http.next(rest::get, start, rest.remaining());
      } catch (HttpRequestReader.Refused e) {
        log.warn("{}", e.describe(ctx.getConnection().getPeerAddress()));
        state.rejected = true;
        state.partialSinceNanos = 0;
        badFrameListener.run();
        respondHttp(ctx, e.response(), true, true);
        return ctx.getStopAction();
      }
      if (length == HttpRequestReader.NEED_MORE) {
        if (state.http.takeContinue()) {
          respondHttp(ctx, HttpResponses.continue100(), false, false);
        }
        state.partial();
        return ctx.getStopAction(rest);
      }
      state.complete();
      HttpRequestReader.Request request = state.http.request();
      if (!request.keepAlive()) {
        state.rejected = true; // nothing after this request is read: the connection closes after it
      }
      int end = start + length;
      Buffer remainder = rest.limit() > end ? rest.split(end) : null;
      if (request.refusal() != 0) {
        state.http.reset();
        log.debug(
            "HTTP request from {} refused with {}",
            ctx.getConnection().getPeerAddress(),
            request.refusal());
        badFrameListener.run();
        respondHttp(ctx, request.refusalResponse(), true, !request.keepAlive());
        if (remainder == null || state.rejected) {
          return ctx.getStopAction();
        }
        rest = remainder;
        continue;
      }
      byte[] body = new byte[state.http.bodyLength()];
      if (state.http.chunked()) {
        state.http.copyBody(rest::get, start, body);
      } else {
        int from = start + state.http.bodyStart();
        for (int i = 0; i < body.length; i++) {
          body[i] = rest.get(from + i); // absolute: the buffer may be a composite of many reads
        }
      }
      state.http.reset();
      state.moreBuffered = false; // each request's reply leaves at once
      ctx.setMessage(new HttpCall(body, request));
      state.passedOn = true;
      return state.rejected ? ctx.getInvokeAction() : ctx.getInvokeAction(remainder);
    }
  }

  /** Hands an HTTP response without a call to the server filter, or closes without one. */
  private static void respondHttp(
      FilterChainContext ctx, java.nio.ByteBuffer response, boolean refusal, boolean closeAfter) {
    ThriftServerFilter server = serverFilterAfter(ctx);
    if (server != null) {
      server.respondHttp(ctx.getConnection(), response, refusal, closeAfter);
    } else if (closeAfter) {
      ctx.getConnection().closeSilently();
    }
  }

  /**
   * Whether {@code buffer} starts with a whole unframed message. The walk keeps what it learned, so
   * the next read goes on from there instead of walking those bytes again.
   */
  private static boolean holdsWholeMessage(ParseState state, Buffer buffer) {
    try {
      state.aheadLength = state.walk.next(buffer::get, buffer.position(), buffer.remaining());
    } catch (UnframedMessages.InvalidMessageException e) {
      state.aheadFailure = e; // refused when its turn comes, after the replies before it
      return false;
    }
    return state.aheadLength != UnframedMessages.NEED_MORE;
  }

  private void rejectMessage(
      FilterChainContext ctx, ParseState state, UnframedMessages.InvalidMessageException e) {
    String reason = e.describe(state.walk.protocol(), ctx.getConnection().getPeerAddress());
    log.warn("Closing connection: {}", reason);
    refuse(ctx, state, e.header(), reason);
  }

  private void refuseTransport(FilterChainContext ctx, Buffer input, ParseState state) {
    String reason =
        serverFilterAfter(ctx) == null // a client's: the same words as every unframed client's
            ? UnframedReplies.notAReplyReason(
                ctx.getConnection().getPeerAddress(), input.get(input.position()))
            : WireKind.describeRefusal(
                input::get,
                input.position(),
                input.remaining(),
                accepted,
                ctx.getConnection().getPeerAddress());
    log.warn("{}", reason);
    refuse(ctx, state, null, reason);
  }

  /** Closes a connection that cannot be read on, after the replies its server filter owes. */
  private void refuse(FilterChainContext ctx, ParseState state, TMessage header, String reason) {
    Connection<?> connection = ctx.getConnection();
    state.rejected = true;
    state.partialSinceNanos = 0;
    badFrameListener.run();
    ThriftServerFilter server = serverFilterAfter(ctx);
    if (server != null) {
      server.refuse(connection, header, reason);
    } else {
      // A client's (an unframed reply it cannot cut): its caller learns why, not just "closed".
      ThriftClientFilter.failed(connection, UnframedReplies.invalid(reason));
      connection.closeSilently();
    }
  }

  /**
   * Whether replies on {@code connection} leave without the length prefix: its first bytes were an
   * unframed message.
   */
  static boolean repliesUnframed(Connection<?> connection) {
    ParseState state = STATE.peek(connection);
    WireKind kind = state == null ? null : state.kind;
    return kind != null && kind.unframed();
  }

  @Override
  public NextAction handleClose(FilterChainContext ctx) throws IOException {
    ParseState state = STATE.peek(ctx.getConnection());
    if (state != null && state.partialSinceNanos != 0 && !state.rejected) {
      log.debug("{} closed in the middle of a frame", ctx.getConnection().getPeerAddress());
      truncatedFrameListener.run();
      if (state.walk != null && serverFilterAfter(ctx) == null) {
        // A client's unframed reply cut short: its callers learn how far it got, not just "closed".
        ThriftClientFilter.failed(
            ctx.getConnection(),
            UnframedReplies.truncated(
                peerOf(ctx.getConnection()), state.walk.walked(), maxFrameSize));
      }
    }
    return ctx.getInvokeAction();
  }

  private void rejectFrame(
      FilterChainContext ctx, ParseState state, FrameSizeException e, TMessage header) {
    Connection<?> connection = ctx.getConnection();
    state.rejected = true;
    state.partialSinceNanos = 0;
    badFrameListener.run();
    if (header != null) {
      log.warn(
          "Closing connection from {}: {} (maxFrameSize {}; its header: {} seqid {})",
          connection.getPeerAddress(),
          e.getMessage(),
          maxFrameSize,
          header.name,
          header.seqid);
    } else {
      log.warn(
          "Closing connection from {}: {} (maxFrameSize {})",
          connection.getPeerAddress(),
          e.getMessage(),
          maxFrameSize);
    }
    ThriftServerFilter server = serverFilterAfter(ctx);
    if (server != null) {
      server.rejectFrame(connection, header, e);
    } else {
      ThriftClientFilter.failed(connection, e); // a client's caller learns why, not just "closed"
      connection.closeSilently();
    }
  }

  /** The server filter later in this chain, which owns the connection's responses, if any. */
  private static ThriftServerFilter serverFilterAfter(FilterChainContext ctx) {
    FilterChain chain = ctx.getFilterChain();
    for (int i = ctx.getFilterIdx() + 1; i < chain.size(); i++) {
      Filter filter = chain.get(i);
      if (filter instanceof ThriftServerFilter) {
        return (ThriftServerFilter) filter;
      }
    }
    return null;
  }

  /** Whether {@code buffer} starts with a whole frame of a valid length. */
  private boolean holdsWholeFrame(Buffer buffer) {
    if (buffer.remaining() < Framing.HEADER_SIZE) {
      return false;
    }
    int length = buffer.getInt(buffer.position());
    return length > 0
        && length <= maxFrameSize
        && buffer.remaining() - Framing.HEADER_SIZE >= length;
  }

  /**
   * Whether the frame just delivered on {@code connection} is followed by another whole frame
   * already read: a server answering it may wait and send both replies in one write.
   */
  static boolean moreFramesBuffered(Connection<?> connection) {
    ParseState state = STATE.peek(connection);
    return state != null && state.moreBuffered;
  }

  static SocketAddress peerOf(Connection<?> connection) {
    Object peer = connection.getPeerAddress();
    return peer instanceof SocketAddress ? (SocketAddress) peer : null;
  }

  /**
   * When the frame being assembled on {@code connection} started to arrive ({@link
   * System#nanoTime()}), or 0 if none is incomplete.
   */
  static long partialFrameSince(Connection<?> connection) {
    ParseState state = STATE.peek(connection);
    return state == null ? 0 : state.partialSinceNanos;
  }

  /**
   * The read clock of {@code connection}: a read begins in this filter, and ends here unless a
   * frame is passed on, in which case the next filter ends it with {@link #requestDelivered} once
   * the request is with the call path. The idle sweep commits its decision against it. In a chain
   * without a {@link ThriftServerFilter} (a client's) nothing ends such a read, and nothing sweeps.
   */
  static ReadActivity reads(Connection<?> connection) {
    return STATE.get(connection).reads;
  }

  /** The frame passed on by the current read of {@code connection} has reached the call path. */
  static void requestDelivered(Connection<?> connection) {
    ParseState state = STATE.peek(connection);
    if (state != null) {
      state.reads.endRead(System.nanoTime());
    }
  }

  /**
   * The server closes {@code connection} for its own reasons (a timeout): its partial frame, if
   * any, is dropped without counting it as the peer's, and later bytes are discarded.
   */
  static void discardRest(Connection<?> connection) {
    ParseState state = STATE.peek(connection);
    if (state != null) {
      state.rejected = true;
    }
  }

  /** Per-connection parse state. */
  private static final class ParseState {
    /** What the connection speaks, once its first byte is here. */
    volatile WireKind kind;

    /** Finds each message's end on an unframed connection; confined to the reading thread. */
    UnframedMessages walk;

    /** Reads each request on an HTTP connection; confined to the reading thread. */
    HttpRequestReader http;

    /** The length of the next unframed message, found by a look-ahead; else NEED_MORE. */
    int aheadLength = UnframedMessages.NEED_MORE;

    /** The next unframed message was found invalid by a look-ahead. */
    UnframedMessages.InvalidMessageException aheadFailure;

    volatile long partialSinceNanos;
    volatile boolean rejected;

    /** Another whole frame follows the one being delivered, in the same read. */
    volatile boolean moreBuffered;

    final ReadActivity reads = new ReadActivity();

    /** The current read passed a frame on; confined to the reading thread. */
    boolean passedOn;

    void partial() {
      if (partialSinceNanos == 0) {
        partialSinceNanos = System.nanoTime() | 1; // never 0 once set
      }
    }

    void complete() {
      partialSinceNanos = 0;
    }
  }
}
