package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.internal.client.QueuedFramedTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
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
 * The sync transport over one Grizzly connection behind {@link ThriftClientFilter#transport} and
 * {@link GrizzlyClientIo#openTransport} over TLS: core's queued framed transport, fed by the
 * chain's {@code ThriftClientFilter}.
 */
final class GrizzlyFramedTransport extends QueuedFramedTransport
    implements ThriftClientFilter.ReplySink {

  private final Connection<?> connection;
  private final long writeTimeoutMillis;
  private final Runnable onClose;

  GrizzlyFramedTransport(
      InetSocketAddress address, Connection<?> connection, ClientOptions options, Runnable onClose)
      throws TTransportException {
    super(address, options);
    this.connection = connection;
    this.writeTimeoutMillis = options.callTimeout().toMillis();
    this.onClose = onClose;
    if (options.wireKind() != WireKind.FRAMED) {
      // The chain's frame filter reads this transport's replies (a framed chain's are frames).
      ThriftFrameFilter.attach(
          connection, ClientCodec.of(options, address, ClientErrors.peer(address)));
    }
    ThriftClientFilter.register(connection, this);
    CloseListeners.onClose(connection, () -> onClosed(null));
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
    return "GrizzlyFramedTransport{"
        + ClientErrors.peer(address)
        + (isOpen() ? ", open" : ", closed")
        + '}';
  }
}
