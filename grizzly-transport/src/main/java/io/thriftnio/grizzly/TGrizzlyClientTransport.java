package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.internal.client.QueuedFramedTransport;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.ReplyEvent;
import io.thriftnio.grizzly.internal.CloseListeners;
import io.thriftnio.grizzly.internal.GrizzlyWrites;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.Buffers;

/**
 * A blocking, framed Thrift client transport over one Grizzly connection whose chain ends with
 * {@code ThriftFrameFilter -> ThriftClientFilter}: any generated {@code Client} works on it, like
 * on {@code TFramedTransport(TSocket)}. The framing, limits, protocol checks and errors are core's,
 * the same as on every transport of this library.
 *
 * <pre>
 *  write(...) write(...)      buffered until flush()
 *  flush()                    sends one frame:  | length | payload |, waits until it is written
 *  read(...)                  blocks until the response frame has arrived (readTimeout)
 * </pre>
 *
 * <p>{@link GrizzlyClientResources#openTransport} uses it for TLS, where Grizzly's {@code
 * SSLFilter} runs on the selector thread; plain TCP there is core's blocking socket transport. On a
 * filter chain of your own, wrap a connected {@link Connection} with {@link #create(Connection)}:
 *
 * <pre>{@code
 * Connection<?> connection = transport.connect(address).get(10, TimeUnit.SECONDS);
 * TTransport thrift = TGrizzlyClientTransport.create(connection);   // open already
 * BenchService.Client client = new BenchService.Client(new TBinaryProtocol(thrift));
 * }</pre>
 *
 * <p>Failures close the transport for good, since its stream may hold half a message; once closed,
 * {@link #open()} and every read fail with {@code NOT_OPEN}. Not thread-safe, like every Thrift
 * transport: one call at a time.
 */
public final class TGrizzlyClientTransport extends QueuedFramedTransport
    implements ThriftClientFilter.ReplySink {

  private final Connection<?> connection;
  private final long writeTimeoutMillis;
  private final Runnable onClose;

  TGrizzlyClientTransport(
      InetSocketAddress address, Connection<?> connection, ClientOptions options, Runnable onClose)
      throws TTransportException {
    super(address, options);
    this.connection = connection;
    this.writeTimeoutMillis = options.readTimeout().toMillis();
    this.onClose = onClose;
    if (options.transport() != WireTransport.FRAMED) {
      // The chain's frame filter reads this transport's replies (a framed chain's are frames).
      ThriftFrameFilter.attach(
          connection, ClientCodec.of(options, address, ClientErrors.peer(address)));
    }
    ThriftClientFilter.register(connection, this);
    CloseListeners.onClose(connection, () -> onClosed(null));
  }

  /**
   * A transport over a connected {@code connection} with {@link ClientOptions#defaults()}.
   *
   * @param connection connected; its chain ends with {@code ThriftFrameFilter ->
   *     ThriftClientFilter}
   * @return the transport, open
   */
  public static TGrizzlyClientTransport create(Connection<?> connection) {
    return create(connection, ClientOptions.defaults());
  }

  /**
   * A transport over a connected {@code connection}; of the options, {@code maxFrameSize} (for
   * requests and libthrift's size checks; the chain's {@code ThriftFrameFilter} bounds framed
   * responses), {@code readTimeout} and {@code transport} apply. With {@code
   * WireTransport.UNFRAMED}, the chain's frame filter reads this connection's replies unframed,
   * bounded by the options' {@code maxFrameSize}.
   *
   * @param connection connected; its chain ends with {@code ThriftFrameFilter ->
   *     ThriftClientFilter}
   * @param options the settings
   * @return the transport, open
   */
  public static TGrizzlyClientTransport create(Connection<?> connection, ClientOptions options) {
    Checks.notNull("connection", connection);
    Checks.notNull("options", options);
    Object peer = connection.getPeerAddress();
    InetSocketAddress address =
        peer instanceof InetSocketAddress
            ? (InetSocketAddress) peer
            : InetSocketAddress.createUnresolved(String.valueOf(peer), 0);
    try {
      return new TGrizzlyClientTransport(address, connection, options, () -> {});
    } catch (TTransportException e) {
      throw new IllegalStateException(e); // TEndpointTransport declares it; never thrown
    }
  }

  @Override
  protected boolean connectionOpen() {
    return connection.isOpen();
  }

  @Override
  protected void closeConnection() {
    connection.closeSilently();
  }

  @Override
  protected void closed() {
    onClose.run();
  }

  @Override
  public void onFrame(ByteBuffer payload) {
    byte[] frame = new byte[payload.remaining()];
    payload.get(frame);
    frameArrived(frame);
  }

  @Override
  public void onEvent(ReplyEvent event) {
    // A sync transport's wire is framed or unframed: only a reply it cannot read has an event.
    onClosed(
        event.connectionFailure() != null
            ? event.connectionFailure()
            : new TTransportException(TTransportException.CORRUPTED_DATA, event.closeReason()));
  }

  @Override
  public void onClosed(Throwable cause) {
    connectionEnded(
        cause instanceof FrameSizeException
            ? ClientErrors.frameSize((FrameSizeException) cause, address)
            : cause);
  }

  /**
   * Sends the frame without copying it and waits until Grizzly has written it (the array is reused
   * by the next call), within the read timeout.
   */
  @Override
  protected void sendFrame(byte[] frame, int length) throws TTransportException {
    CompletableFuture<Void> written = new CompletableFuture<>();
    requestSent();
    GrizzlyWrites.write(
        connection,
        Buffers.wrap(connection.getMemoryManager(), frame, 0, length),
        failure -> {
          if (failure == null) {
            written.complete(null);
          } else {
            written.completeExceptionally(failure);
          }
        });
    try {
      written.get(writeTimeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      close();
      Thread.currentThread().interrupt();
      throw ClientErrors.interrupted(address, e);
    } catch (TimeoutException e) {
      close();
      throw new TTransportException(
          TTransportException.TIMED_OUT,
          "frame of "
              + length
              + " bytes to "
              + ClientErrors.peer(address)
              + " not written within "
              + writeTimeoutMillis
              + " ms; transport closed");
    } catch (ExecutionException e) {
      close();
      throw ClientErrors.connectionFailed(address, e.getCause());
    }
  }

  @Override
  public String toString() {
    return "TGrizzlyClientTransport{"
        + ClientErrors.peer(address)
        + (isOpen() ? ", open" : ", closed")
        + '}';
  }
}
