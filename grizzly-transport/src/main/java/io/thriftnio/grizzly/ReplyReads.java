package io.thriftnio.grizzly;

import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.ReplyEvent;
import io.thriftnio.core.wire.WireEvent;
import io.thriftnio.core.wire.WireMessage;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.Buffers;

/**
 * {@link ThriftFrameFilter}'s client role, one per client connection (its one attribute): the
 * connection's replies, read with the {@link ClientCodec} its client attached (framed by default),
 * each passed on to {@link ThriftClientFilter}. The bytes of a reply still incomplete are kept here
 * rather than with the chain, since a body that runs to the end of the stream is whole only at the
 * close, where the chain no longer hands them over.
 */
final class ReplyReads {

  private static final Attribute<ReplyReads> READS =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(ReplyReads.class.getName());

  private final ClientCodec codec;
  private final GrizzlyBytes bytes = new GrizzlyBytes();

  /** The unconsumed bytes of the last read, or {@code null}; confined to the reading thread. */
  private Buffer carried;

  private ReplyReads(ClientCodec codec) {
    this.codec = codec;
  }

  /** Reads {@code connection}'s replies with {@code codec}; before its first request is written. */
  static void attach(Connection<?> connection, ClientCodec codec) {
    READS.set(connection, new ReplyReads(codec));
  }

  /** Reads on; the first reply found goes on to the next filter, the rest waits for its turn. */
  static NextAction read(FilterChainContext ctx, int maxFrameSize, Runnable badFrameListener) {
    Connection<?> connection = ctx.getConnection();
    ReplyReads reads = READS.get(connection);
    if (reads == null) { // a chain of the user's: framed replies, the filter's limit
      reads = new ReplyReads(ClientCodec.framed(maxFrameSize, Addresses.peer(connection)));
      READS.set(connection, reads);
    }
    return reads.read(ctx, connection, badFrameListener);
  }

  private NextAction read(
      FilterChainContext ctx, Connection<?> connection, Runnable badFrameListener) {
    Buffer input = ctx.getMessage();
    if (carried != null) {
      input = Buffers.appendBuffers(connection.getMemoryManager(), carried, input);
      carried = null;
    }
    while (true) {
      int start = input.position();
      WireEvent event = codec.next(bytes.of(input), start, input.remaining());
      Decoded d = codec.decoded();
      if (event == WireEvent.NEED_MORE) {
        if (!codec.rejected() && input.hasRemaining()) {
          carried = input;
        }
        return ctx.getStopAction();
      }
      if (event == WireEvent.REFUSED) {
        badFrameListener.run();
        ThriftClientFilter.deliver(connection, null, ReplyEvent.of(d));
        connection.closeSilently();
        return ctx.getStopAction();
      }
      Buffer remainder = GrizzlyBytes.after(input, start + d.consumed());
      Buffer payload = event == WireEvent.MESSAGE ? payload(connection, input, start, d) : null;
      ReplyEvent then = ReplyEvent.of(d);
      if (payload == null && then == null) {
        if (remainder == null) {
          return ctx.getStopAction(); // a reply no call waits for, and nothing after it
        }
        input = remainder;
        continue;
      }
      ctx.setMessage(then == null ? payload : WireMessage.reply(payload, then));
      return remainder == null || codec.rejected()
          ? ctx.getInvokeAction()
          : ctx.getInvokeAction(remainder);
    }
  }

  /**
   * The connection closed: a reply whose body ran to the end of the stream is delivered, one cut
   * short fails the client, saying where.
   */
  static void end(Connection<?> connection, Runnable truncatedFrameListener) {
    ReplyReads reads = READS.get(connection);
    if (reads != null) {
      reads.ended(connection, truncatedFrameListener);
    }
  }

  private void ended(Connection<?> connection, Runnable truncatedFrameListener) {
    Buffer rest = carried;
    carried = null;
    if (rest != null) {
      truncatedFrameListener.run();
    }
    Buffer in = rest != null ? rest : Buffers.EMPTY_BUFFER;
    WireEvent event = codec.endOfStream(bytes.of(in), in.position(), in.remaining());
    if (event != WireEvent.NEED_MORE) {
      Decoded d = codec.decoded();
      Buffer payload =
          event == WireEvent.MESSAGE ? payload(connection, in, in.position(), d) : null;
      ThriftClientFilter.deliver(connection, payload, ReplyEvent.of(d));
    }
  }

  private static Buffer payload(Connection<?> connection, Buffer input, int start, Decoded d) {
    byte[] array = d.payloadArray();
    return array != null
        ? Buffers.wrap(connection.getMemoryManager(), array)
        : GrizzlyBytes.view(input, start, d);
  }
}
