package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.wire.ReplyEvent;
import io.thriftnio.core.wire.WireMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * Hands the response frames that {@link ThriftFrameFilter} delivers to the client that owns the
 * connection (the sync transport of {@link #transport(Connection)}, or {@code
 * GrizzlyThriftChannel}), and tells it when the connection closes.
 *
 * <pre>
 *  TransportFilter -&gt; ThriftFrameFilter -&gt; ThriftClientFilter -&gt; the connection's client
 * </pre>
 *
 * <p>The client registers itself on its connection before it sends anything; frames arriving on a
 * connection without a client are a protocol violation and close it. One instance serves every
 * connection of a filter chain.
 *
 * <p>In a filter chain of your own, end the chain with this filter and hand each connected {@code
 * Connection} to {@link #transport(Connection)}, before its first request goes out:
 *
 * <pre>{@code
 * transport.setProcessor(FilterChainBuilder.stateless()
 *     .add(new TransportFilter())
 *     .add(new ThriftFrameFilter(maxFrameSize))
 *     .add(new ThriftClientFilter())
 *     .build());
 * Connection<?> connection = transport.connect(address).get(10, TimeUnit.SECONDS);
 * BenchService.Client client =
 *     new BenchService.Client(new TBinaryProtocol(ThriftClientFilter.transport(connection)));
 * }</pre>
 *
 * <p>The transport registers itself on the connection as the receiver of its replies.
 */
public final class ThriftClientFilter extends BaseFilter {

  private static final Attribute<FrameSink> SINK =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          ThriftClientFilter.class.getName() + ".sink");

  /** Creates the filter. */
  public ThriftClientFilter() {}

  /**
   * A blocking, framed Thrift client transport over a connected {@code connection} with {@link
   * ClientOptions#defaults()}: any generated {@code Client} works on it, like on {@code
   * TFramedTransport(TSocket)}.
   *
   * @param connection connected; its chain ends with {@code ThriftFrameFilter ->
   *     ThriftClientFilter}
   * @return the transport, open
   * @see #transport(Connection, ClientOptions)
   */
  public static TTransport transport(Connection<?> connection) {
    return transport(connection, ClientOptions.defaults());
  }

  /**
   * A blocking, framed Thrift client transport over a connected {@code connection}. The framing,
   * limits, protocol checks and errors are core's, the same as on every transport of this library:
   *
   * <pre>
   *  write(...) write(...)      buffered until flush()
   *  flush()                    sends one frame:  | length | payload |, waits until it is written
   *  read(...)                  blocks until the response frame has arrived (callTimeout)
   * </pre>
   *
   * <p>Of the options, {@code maxFrameSize} (for requests and libthrift's size checks; the chain's
   * {@code ThriftFrameFilter} bounds framed responses), {@code callTimeout} and {@code wireKind}
   * apply. With {@code WireKind.UNFRAMED}, the chain's frame filter reads this connection's replies
   * unframed, bounded by the options' {@code maxFrameSize}. Failures close the transport for good,
   * since its stream may hold half a message; once closed, {@code open()} and every read fail with
   * {@code NOT_OPEN}. Not thread-safe, like every Thrift transport: one call at a time. Its {@code
   * close()} closes the connection.
   *
   * @param connection connected; its chain ends with {@code ThriftFrameFilter ->
   *     ThriftClientFilter}
   * @param options the settings
   * @return the transport, open
   */
  public static TTransport transport(Connection<?> connection, ClientOptions options) {
    Checks.notNull("connection", connection);
    Checks.notNull("options", options);
    SocketAddress peer = Addresses.peer(connection);
    InetSocketAddress address =
        peer instanceof InetSocketAddress a
            ? a
            : InetSocketAddress.createUnresolved(String.valueOf(peer), 0);
    try {
      return new GrizzlyFramedTransport(address, connection, options, () -> {});
    } catch (TTransportException e) {
      throw new IllegalStateException(e); // TEndpointTransport declares it; never thrown
    }
  }

  /**
   * Where a connection's response frames go (this package's clients). Both methods run on the
   * thread that read the connection (a selector or worker thread, by the transport's IO strategy),
   * one at a time per connection and in arrival order: hand long work off rather than block in
   * them.
   */
  interface FrameSink {
    /**
     * One response payload (no length prefix), from position to limit; the sink owns it and may
     * keep it.
     *
     * @param payload the frame's payload
     */
    void onFrame(ByteBuffer payload);

    /**
     * The connection closed, or failed with {@code cause}. May be called more than once for one
     * connection (a failure, then the close); sinks should make it idempotent.
     *
     * @param cause the failure, or {@code null} for an orderly close
     */
    void onClosed(Throwable cause);
  }

  /**
   * Sends the response frames of {@code connection} to {@code sink}, replacing any sink registered
   * before. Call it before the connection's first request is written, or a fast response finds no
   * sink and the connection is closed.
   *
   * @param connection a connection whose chain ends with a {@code ThriftClientFilter}
   * @param sink receives its frames and its close
   */
  static void register(Connection<?> connection, FrameSink sink) {
    SINK.set(
        Objects.requireNonNull(connection, "connection"), Objects.requireNonNull(sink, "sink"));
  }

  /**
   * A sink of this package's clients, which also takes what a reply says besides its payload (an
   * HTTP status that fails its call, a server ending the connection after it).
   */
  interface ReplySink extends FrameSink {
    /** What the reply just delivered (if any) says besides its payload. */
    void onEvent(ReplyEvent event);
  }

  /**
   * Hands a reply, or what a reply says ({@code event}), to the client of {@code connection}: as it
   * reached this filter, or as the frame filter found it at the end of the stream. A sink of the
   * user's learns of an event that ends the connection through {@link FrameSink#onClosed}.
   */
  static void deliver(Connection<?> connection, Buffer payload, ReplyEvent event) {
    FrameSink sink = SINK.get(connection);
    if (sink == null) {
      connection.closeSilently(); // a reply before any request: not an answer to anything
      return;
    }
    if (payload != null) {
      sink.onFrame(payload.toByteBuffer());
    }
    if (event == null) {
      return;
    }
    if (sink instanceof ReplySink) {
      ((ReplySink) sink).onEvent(event);
    } else if (event.connectionFailure() != null) {
      sink.onClosed(event.connectionFailure());
    }
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) throws IOException {
    Object message = ctx.getMessage();
    if (message instanceof WireMessage) {
      WireMessage<?> reply = (WireMessage<?>) message;
      deliver(ctx.getConnection(), (Buffer) reply.payload(), reply.event());
    } else {
      deliver(ctx.getConnection(), (Buffer) message, null);
    }
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
