package io.thriftnio.testkit.memory;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.internal.server.ServerConnection;
import io.thriftnio.core.util.internal.Framing;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;

/**
 * The server's end of an in-memory connection: cuts the client's bytes into frames on the server's
 * IO thread and hands each to its {@link CallSequencer}, as the Netty and Grizzly adapters do; the
 * replies go to the client's {@link MemoryPipe} when flushed. Every field but the pipe is confined
 * to the IO thread.
 */
final class MemoryServerConnection implements ServerConnection, ConnectionHandle {

  private final InMemoryThriftServer server;
  private final MemoryPipe toClient = new MemoryPipe();
  private final InetSocketAddress remote;
  private final InetSocketAddress local;
  private final ByteArrayOutputStream unflushed = new ByteArrayOutputStream();
  private byte[] input = new byte[0];
  private boolean paused;
  private boolean closed;
  private RegisteredConnection<ConnectionHandle> registration;
  private volatile CallSequencer calls;

  MemoryServerConnection(
      InMemoryThriftServer server, InetSocketAddress remote, InetSocketAddress local) {
    this.server = server;
    this.remote = remote;
    this.local = local;
  }

  MemoryPipe toClient() {
    return toClient;
  }

  /** The accept, on the IO thread: admitted (or refused) as a socket transport's connection is. */
  void open() {
    registration = server.admit(this, remote, local);
    if (registration == null) {
      closed = true; // over maxConnections, or the server is closing: counted by the registry
      toClient.end();
      return;
    }
    calls = server.callPath().open(this);
    if (server.isClosing()) {
      // close() began after the admission, and its drain may not have seen this connection.
      registration.noteClose(CloseCause.SERVER_CLOSING);
      calls.startDrain();
    }
  }

  /** Bytes from the client, on its thread. */
  void received(byte[] bytes, int offset, int length) {
    byte[] copy = Arrays.copyOfRange(bytes, offset, offset + length);
    execute(() -> onBytes(copy));
  }

  /** The client closed (or reset) its end, on its thread. */
  void peerEnded(boolean reset) {
    execute(
        () -> {
          if (!closed) {
            registration.noteClose(CloseCause.PEER_CLOSED);
            if (reset) {
              toClient.reset("reset by the client");
            }
            closeConnection();
          }
        });
  }

  private void onBytes(byte[] bytes) {
    if (closed) {
      return; // a closed socket discards what still arrives
    }
    byte[] all = Arrays.copyOf(input, input.length + bytes.length);
    System.arraycopy(bytes, 0, all, input.length, bytes.length);
    input = all;
    decode();
  }

  private void decode() {
    int offset = 0;
    while (!paused && !closed && input.length - offset >= Framing.HEADER_SIZE) {
      int length = ByteBuffer.wrap(input, offset, Framing.HEADER_SIZE).getInt();
      if (length <= 0 || length > server.config().maxFrameSize()) {
        // The socket transports reject such a frame in their decoders, before the call path.
        server.countBadFrame();
        registration.noteClose(CloseCause.BAD_REQUEST);
        closeConnection();
        return;
      }
      if (input.length - offset - Framing.HEADER_SIZE < length) {
        break;
      }
      int start = offset + Framing.HEADER_SIZE;
      offset = start + length;
      if (!calls.onRequest(ByteBuffer.wrap(Arrays.copyOfRange(input, start, offset)), null)) {
        paused = true; // until resumeReading()
      }
    }
    input = Arrays.copyOfRange(input, offset, input.length);
    if (!closed) {
      calls.readComplete();
    }
  }

  private void closeConnection() {
    if (closed) {
      return;
    }
    closed = true;
    toClient.end();
    calls.onClosed();
    server.closed(registration);
  }

  // ---- ServerConnection -------------------------------------------------------------------------

  @Override
  public void write(ByteBuffer head, ByteBuffer body) {
    for (ByteBuffer part : new ByteBuffer[] {head, body}) {
      if (part != null) {
        ByteBuffer p = part.duplicate();
        byte[] bytes = new byte[p.remaining()];
        p.get(bytes);
        unflushed.write(bytes, 0, bytes.length);
      }
    }
  }

  @Override
  public void flush() {
    byte[] bytes = unflushed.toByteArray();
    unflushed.reset();
    if (!closed) {
      toClient.write(bytes, 0, bytes.length);
    }
  }

  @Override
  public boolean inIoThread() {
    return server.inIoThread();
  }

  @Override
  public void execute(Runnable task) {
    try {
      server.io().execute(task);
    } catch (RejectedExecutionException ioThreadGone) {
      task.run(); // as the contract says: the connection is closed then, and its writes dropped
    }
  }

  @Override
  public void resumeReading() {
    execute(
        () -> {
          paused = false;
          decode();
        });
  }

  @Override
  public void release(Object request) {
    // Each request is a copy of its own, collected with its call.
  }

  @Override
  public void close(boolean halfCloseFirst) {
    flush();
    closeConnection();
  }

  @Override
  public boolean hasBufferedRequests() {
    return input.length >= Framing.HEADER_SIZE
        && input.length - Framing.HEADER_SIZE
            >= ByteBuffer.wrap(input, 0, Framing.HEADER_SIZE).getInt();
  }

  @Override
  public void allAnswered() {
    // No idle timeout runs in memory: nothing to restart.
  }

  @Override
  public SocketAddress remoteAddress() {
    return remote;
  }

  @Override
  public SocketAddress localAddress() {
    return local;
  }

  @Override
  public RegisteredConnection<?> registration() {
    return registration;
  }

  // ---- ConnectionHandle -------------------------------------------------------------------------

  @Override
  public void startDrain() {
    execute(
        () -> {
          if (!closed) {
            calls.startDrain();
          }
        });
  }

  @Override
  public int pendingCalls() {
    CallSequencer c = calls;
    return c == null ? 0 : c.pendingCalls();
  }

  @Override
  public void closeNow() {
    execute(this::closeConnection);
  }
}
