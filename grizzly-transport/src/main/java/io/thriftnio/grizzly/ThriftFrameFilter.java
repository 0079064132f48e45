package io.thriftnio.grizzly;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.Envelope;
import io.thriftnio.core.wire.Refusal;
import io.thriftnio.core.wire.ServerCodec;
import io.thriftnio.core.wire.WireEvent;
import io.thriftnio.core.wire.WireMessage;
import io.thriftnio.core.wire.WireSettings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.Filter;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * Splits the bytes read from a connection into Thrift frames ({@code TFramedTransport}), following
 * the wire rules of Thrift's framed transport (a signed 4-byte big-endian length that does not
 * count itself, then the message; a length of 0 or less, or above {@code maxFrameSize}, closes the
 * connection): the Grizzly binding of thrift-nio core's wire decoders.
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
 * position is the first payload byte and whose limit is the end of the frame: a view of the bytes
 * read (split off, not copied), or Grizzly's composite of the reads a frame spanned. The filter
 * never disposes the buffers it passes on. An incomplete frame waits for the next read; several in
 * one read are delivered one after another; nothing is allocated in proportion to a declared
 * length. A length {@code <= 0} or {@code > maxFrameSize} is rejected as soon as its four bytes are
 * present: one WARN line with the peer, the length, the limit and what the bytes look like, then
 * the connection closes (other connections are not affected).
 *
 * <p>The role follows the chain. Before a {@link ThriftServerFilter} (a server's chain), a rejected
 * frame ends the connection after every earlier response, and in a {@link GrizzlyThriftServer} the
 * filter reads every wire kind the server accepts ({@link ServerBuilder#wireKinds}): the first
 * bytes of a connection pick one (core's sniffer), each request is passed on whole with how its
 * reply must leave, and an answer without a call ({@code 100 Continue}, an HTTP refusal) goes to
 * the server filter in request order. Otherwise (a client's chain, ending with a {@link
 * ThriftClientFilter}) it reads the connection's replies: framed, or those of the codec a client of
 * this package attached; a reply it refuses fails the connection's client, then closes it.
 *
 * <p>One instance serves every connection of a filter chain. Writes pass through unchanged.
 */
public final class ThriftFrameFilter extends BaseFilter {

  private final WireSettings settings;
  private final Runnable badFrameListener;
  private final Runnable truncatedFrameListener;

  /** A filter with libthrift's default limit, 16,384,000 bytes. */
  public ThriftFrameFilter() {
    this(Framing.DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * @param maxFrameSize the largest payload accepted, in bytes (the 4-byte prefix not counted)
   * @throws IllegalArgumentException if {@code maxFrameSize <= 0}
   */
  public ThriftFrameFilter(int maxFrameSize) {
    this(maxFrameSize, () -> {});
  }

  /**
   * @param badFrameListener runs once for every connection refused
   */
  ThriftFrameFilter(int maxFrameSize, Runnable badFrameListener) {
    this(
        WireSettings.of(
            maxFrameSize, EnumSet.of(WireKind.FRAMED), null, ServerBuilder.DEFAULT_HTTP_PATH),
        badFrameListener,
        () -> {});
  }

  /**
   * For {@link GrizzlyThriftServer}: every kind {@code settings} accepts.
   *
   * @param truncatedFrameListener runs once for every connection that the peer ends in the middle
   *     of a message
   */
  ThriftFrameFilter(
      WireSettings settings, Runnable badFrameListener, Runnable truncatedFrameListener) {
    this.settings = settings;
    this.badFrameListener = badFrameListener;
    this.truncatedFrameListener = truncatedFrameListener;
  }

  /** The largest payload accepted, in bytes. */
  public int maxFrameSize() {
    return settings.maxFrameSize();
  }

  /**
   * Reads {@code connection}'s replies with {@code codec} (its transport's, its limit) instead of
   * as frames; call before the first request is written.
   */
  static void attach(Connection<?> connection, ClientCodec codec) {
    ReplyReads.attach(connection, codec);
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) throws IOException {
    ThriftServerFilter server = serverFilterAfter(ctx);
    if (server == null) {
      return ReplyReads.read(ctx, settings.maxFrameSize(), badFrameListener);
    }
    GrizzlyServerConnection adapter = server.connection(ctx.getConnection());
    if (!adapter.reads.beginRead(System.nanoTime())) {
      // The idle sweep closed this connection before these bytes reached us (issue 7).
      return ctx.getStopAction();
    }
    adapter.passedOn = false;
    ServerCodec codec = adapter.codec(settings);
    NextAction next;
    if (codec.kind() == null || codec.handshaking()) {
      // A wake-up of the handshake may decode on another thread meanwhile: the wire is read under
      // the connection's handshake lock, and what it asks for is done once the lock is left.
      List<Runnable> then = new ArrayList<>(2);
      synchronized (adapter.handshake) {
        next = readRequests(ctx, adapter, codec, ctx.getMessage(), then);
      }
      then.forEach(Runnable::run);
    } else {
      next = readRequests(ctx, adapter, codec, ctx.getMessage(), null);
    }
    if (!adapter.passedOn) {
      adapter.reads.endRead(System.nanoTime()); // else the server filter ends it, once delivered
    }
    return next;
  }

  /**
   * Reads the requests of {@code input}. The answers, refusals and waits the wire asks for are
   * added to {@code then} when it is not {@code null} (the caller holds the handshake lock, and
   * runs them in order once it has left it: they may close the connection, which runs its
   * listeners, or call the application's negotiation executor), else done at once.
   */
  private NextAction readRequests(
      FilterChainContext ctx,
      GrizzlyServerConnection adapter,
      ServerCodec codec,
      Buffer input,
      List<Runnable> then) {
    while (true) {
      int start = input.position();
      WireEvent event = codec.next(adapter.bytes.of(input), start, input.remaining());
      Decoded d = codec.decoded();
      switch (event) {
        case NEED_MORE:
          return codec.rejected() ? ctx.getStopAction() : ctx.getStopAction(input);
        case REFUSED:
          {
            Refusal refusal = d.refusal();
            act(
                then,
                () -> {
                  badFrameListener.run();
                  adapter.refused(refusal);
                });
            return ctx.getStopAction();
          }
        case ANSWER:
          {
            act(then, answer(adapter, d, badFrameListener));
            Buffer rest = GrizzlyBytes.after(input, start + d.consumed());
            if (rest == null || codec.rejected()) {
              return ctx.getStopAction();
            }
            input = rest;
            continue;
          }
        case AWAIT:
          {
            // First the bytes: a stage already complete wakes the wire up at once, on this thread.
            Buffer rest = GrizzlyBytes.after(input, start + d.consumed());
            awaitThen(then, d, adapter, codec);
            if (rest == null) {
              return ctx.getStopAction();
            }
            input = rest;
            continue;
          }
        case MESSAGE:
          {
            Buffer remainder = GrizzlyBytes.after(input, start + d.consumed());
            Envelope envelope = d.envelope();
            byte[] array = d.payloadArray();
            Buffer payload = array == null ? GrizzlyBytes.view(input, start, d) : null;
            // Decided before the look-ahead, which may find a refusal: that is delivered next.
            boolean last = codec.rejected();
            adapter.moreBuffered =
                !last
                    && remainder != null
                    && codec.peek(
                        adapter.bytes.of(remainder), remainder.position(), remainder.remaining());
            ctx.setMessage(
                array == null && (envelope == codec.envelope() || envelope == Envelope.FRAMED)
                    ? payload
                    : WireMessage.request(payload, array, envelope));
            adapter.passedOn = true;
            return last ? ctx.getInvokeAction() : ctx.getInvokeAction(remainder);
          }
        default:
          throw new IllegalStateException("decoder event " + event + " on " + codec);
      }
    }
  }

  /** Does {@code action} now if {@code then} is {@code null}, else adds it to {@code then}. */
  private static void act(List<Runnable> then, Runnable action) {
    if (then == null) {
      action.run();
    } else {
      then.add(action);
    }
  }

  /** The {@code ANSWER} in {@code d}, taken now (the next step overwrites it), sent when run. */
  private static Runnable answer(
      GrizzlyServerConnection adapter, Decoded d, Runnable badFrameListener) {
    ByteBuffer answer = d.answer();
    boolean refuses = d.refusesRequest();
    boolean closeAfter = d.closeAfter() != null;
    return () -> {
      if (refuses) {
        badFrameListener.run();
      }
      adapter.answer(answer, refuses, closeAfter);
    };
  }

  /** The {@code AWAIT} in {@code d}: its wake-up registered, then its step started, when run. */
  private static void awaitThen(
      List<Runnable> then, Decoded d, GrizzlyServerConnection adapter, ServerCodec codec) {
    CompletionStage<?> awaited = d.awaited();
    Runnable step = d.step();
    act(then, () -> wakeUpAfter(awaited, adapter, codec));
    if (step != null) {
      act(then, step);
    }
  }

  /**
   * Once {@code stage} (a SASL step, a negotiation's deadline) completes, decodes again on the
   * selector thread and acts on what the wire says: an answer, a refusal, another wait. The bytes
   * the chain keeps between reads are read with the next read: a SASL client sends nothing while it
   * waits for the server's answer.
   */
  private static void wakeUpAfter(
      CompletionStage<?> stage, GrizzlyServerConnection adapter, ServerCodec codec) {
    stage.whenComplete((done, failed) -> adapter.execute(() -> wakeUp(adapter, codec)));
  }

  private static void wakeUp(GrizzlyServerConnection adapter, ServerCodec codec) {
    if (!adapter.connection.isOpen()) {
      return; // closed meanwhile: handleClose ended the wire
    }
    List<Runnable> then = new ArrayList<>(2);
    synchronized (adapter.handshake) {
      decodeAwake(adapter, codec, then);
    }
    then.forEach(Runnable::run);
  }

  /** Under the handshake lock: what the wire says after a wake-up, into {@code then}. */
  private static void decodeAwake(
      GrizzlyServerConnection adapter, ServerCodec codec, List<Runnable> then) {
    while (true) {
      WireEvent event = codec.wake();
      Decoded d = codec.decoded();
      switch (event) {
        case ANSWER:
          then.add(answer(adapter, d, () -> {}));
          continue;
        case REFUSED:
          {
            Refusal refusal = d.refusal();
            then.add(() -> adapter.refused(refusal));
            return;
          }
        case AWAIT:
          awaitThen(then, d, adapter, codec);
          return;
        default:
          return;
      }
    }
  }

  @Override
  public NextAction handleClose(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    ThriftServerFilter server = serverFilterAfter(ctx);
    if (server != null) {
      GrizzlyServerConnection adapter = ThriftServerFilter.peek(connection);
      if (adapter != null && adapter.codec(settings).endOfInput()) {
        truncatedFrameListener.run();
      }
      return ctx.getInvokeAction();
    }
    ReplyReads.end(connection, truncatedFrameListener);
    return ctx.getInvokeAction();
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
}
