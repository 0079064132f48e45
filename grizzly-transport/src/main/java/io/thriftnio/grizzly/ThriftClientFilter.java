package io.thriftnio.grizzly;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * Hands the response frames that {@link ThriftFrameFilter} delivers to the client transport that
 * owns the connection ({@link TGrizzlyClientTransport} or {@link GrizzlyThriftChannel}), and tells
 * it when the connection closes.
 *
 * <pre>
 *  TransportFilter -&gt; ThriftFrameFilter -&gt; ThriftClientFilter -&gt; the connection's client
 * </pre>
 *
 * <p>The client registers itself on its connection before it sends anything; frames arriving on a
 * connection without a client are a protocol violation and close it. One instance serves every
 * connection of a filter chain.
 */
public final class ThriftClientFilter extends BaseFilter {

  private static final Attribute<FrameSink> SINK =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          ThriftClientFilter.class.getName() + ".sink");

  /** Creates the filter. */
  public ThriftClientFilter() {}

  /** Where a connection's response frames go. */
  interface FrameSink {
    /** One response payload (no prefix), from position to limit; the sink may keep it. */
    void onFrame(ByteBuffer payload);

    /** The connection closed, or failed with {@code cause} (may be {@code null}). */
    void onClosed(Throwable cause);
  }

  static void register(Connection<?> connection, FrameSink sink) {
    SINK.set(connection, sink);
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    FrameSink sink = SINK.get(connection);
    Buffer message = ctx.getMessage();
    if (sink == null) {
      connection.closeSilently();
      return ctx.getStopAction();
    }
    sink.onFrame(message.toByteBuffer());
    return ctx.getStopAction();
  }

  @Override
  public NextAction handleClose(FilterChainContext ctx) throws IOException {
    FrameSink sink = SINK.get(ctx.getConnection());
    if (sink != null) {
      sink.onClosed(null);
    }
    return ctx.getInvokeAction();
  }

  @Override
  public void exceptionOccurred(FilterChainContext ctx, Throwable error) {
    FrameSink sink = SINK.get(ctx.getConnection());
    if (sink != null) {
      sink.onClosed(error);
    }
  }
}
