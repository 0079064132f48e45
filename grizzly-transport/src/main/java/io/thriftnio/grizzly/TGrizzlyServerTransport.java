package io.thriftnio.grizzly;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.Buffers;

/**
 * The server side of one request on a Grizzly connection, as a Thrift transport: reads the request
 * frame's payload and sends what is written as one response frame on {@link #flush()}. For users
 * who run a {@code TProcessor} themselves in their own filter, after {@link ThriftFrameFilter}:
 *
 * <pre>{@code
 * public NextAction handleRead(FilterChainContext ctx) throws IOException {
 *   Buffer payload = ctx.getMessage();
 *   TGrizzlyServerTransport t = new TGrizzlyServerTransport(
 *       ctx.getConnection(), payload.toByteBuffer(), new TConfiguration());
 *   processor.process(new TBinaryProtocol(t), new TBinaryProtocol(t));  // flushes the reply
 *   return ctx.getStopAction();
 * }
 * }</pre>
 *
 * <pre>
 *  read(...)   from the request payload; END_OF_FILE past its end
 *  write(...)  into [ length placeholder | payload ... ]
 *  flush()     patches the length and writes | length | payload | to the connection
 * </pre>
 *
 * <p>The {@link TConfiguration} is real: the read budget is the request's length, and the response
 * may not exceed its {@code maxFrameSize}. {@link GrizzlyThriftServer} does not need this class
 * (its {@link ThriftServerFilter} uses core's {@code ProcessorInvoker}). Not thread-safe; one
 * instance per request.
 *
 * <p><b>Synchronous, same-thread use only.</b> {@link #flush()} writes the response straight to the
 * connection, so responses leave in the order the flushes happen, not the order the requests
 * arrived. That is the request order only when each request is processed to completion on the
 * thread that read it, before the next one is read, as in the example above with Grizzly's
 * same-thread strategy. With worker threads, {@code ctx.suspend()}, or an async processor, two
 * requests of one connection can finish out of order and a client that pipelines (every Thrift
 * client matches responses to requests by order) gets the wrong answers. For those chains use
 * {@link ThriftServerFilter}, which keeps each connection's responses in request order.
 */
final class TGrizzlyServerTransport extends TEndpointTransport {

  private final Connection<?> connection;
  private final FrameInputTransport input;
  private final FrameOutputTransport output;

  /**
   * @param connection the connection the request arrived on
   * @param requestPayload the request frame's payload (no prefix), from position to limit
   * @param configuration limits for the protocols; {@code maxMessageSize} must cover the request
   * @throws TTransportException if the request is larger than the configuration allows
   */
  public TGrizzlyServerTransport(
      Connection<?> connection, ByteBuffer requestPayload, TConfiguration configuration)
      throws TTransportException {
    super(configuration);
    this.connection = Objects.requireNonNull(connection, "connection");
    this.input = FrameInputTransport.of(getConfiguration(), requestPayload);
    this.output = FrameLength.output(getConfiguration());
    resetConsumedMessageSize(-1);
    updateKnownMessageSize(requestPayload.remaining());
  }

  @Override
  public boolean isOpen() {
    return connection.isOpen();
  }

  /** Does nothing: the connection is already open. */
  @Override
  public void open() {}

  /** Closes the connection. */
  @Override
  public void close() {
    connection.closeSilently();
  }

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    int n = input.read(buf, off, len);
    countConsumedMessageBytes(n);
    return n;
  }

  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    output.write(buf, off, len);
  }

  /**
   * Writes the response frame to the connection (Grizzly's async write queue) and starts a new one.
   * Does nothing if nothing was written (a oneway call).
   *
   * @throws TTransportException {@code NOT_OPEN} if the connection is closed
   */
  @Override
  public void flush() throws TTransportException {
    if (output.payloadSize() == 0) {
      return;
    }
    if (!connection.isOpen()) {
      output.reset();
      throw new TTransportException(
          TTransportException.NOT_OPEN,
          "connection to " + connection.getPeerAddress() + " closed before the response was sent");
    }
    ByteBuffer frame = output.toFrame();
    byte[] copy = new byte[frame.remaining()];
    frame.get(copy);
    output.reset();
    connection.write(Buffers.wrap(connection.getMemoryManager(), copy));
  }
}
