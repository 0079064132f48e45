package io.thriftnio.testkit.memory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;

/**
 * The client's end of an in-memory connection, as a {@link Socket} so that code written for sockets
 * (the suites' {@code RawConnection}) uses it unchanged. Only what such code calls is implemented:
 * streams, timeouts, half-close, close, reset ({@code setSoLinger(true, 0)} then {@code close()})
 * and the addresses.
 */
final class MemorySocket extends Socket {

  private final MemoryServerConnection server;
  private final MemoryPipe fromServer;
  private final InetSocketAddress local;
  private final InetSocketAddress remote;
  private volatile int timeoutMillis;
  private volatile boolean resetOnClose;
  private volatile boolean closed;
  private volatile boolean outputShut;

  MemorySocket(
      MemoryServerConnection server,
      MemoryPipe fromServer,
      InetSocketAddress local,
      InetSocketAddress remote)
      throws SocketException {
    super((SocketImpl) null); // no socket underneath: every method used is overridden
    this.server = server;
    this.fromServer = fromServer;
    this.local = local;
    this.remote = remote;
  }

  @Override
  public InputStream getInputStream() throws IOException {
    checkOpen();
    InputStream in = fromServer.inputStream(() -> timeoutMillis);
    return new InputStream() {
      @Override
      public int read() throws IOException {
        checkOpen();
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        checkOpen();
        return in.read(b, off, len);
      }
    };
  }

  @Override
  public OutputStream getOutputStream() throws IOException {
    checkOpen();
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        checkOpen();
        if (outputShut) {
          throw new SocketException("Socket output is shutdown");
        }
        server.received(b, off, len);
      }
    };
  }

  private void checkOpen() throws SocketException {
    if (closed) {
      throw new SocketException("Socket is closed");
    }
  }

  @Override
  public void setSoTimeout(int timeout) {
    this.timeoutMillis = timeout;
  }

  @Override
  public int getSoTimeout() {
    return timeoutMillis;
  }

  @Override
  public void setTcpNoDelay(boolean on) {
    // Nothing is batched in memory: every write reaches the server at once.
  }

  @Override
  public void setSoLinger(boolean on, int linger) {
    resetOnClose = on && linger == 0;
  }

  @Override
  public void shutdownOutput() {
    if (!outputShut) {
      outputShut = true;
      server.peerEnded(false);
    }
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public boolean isConnected() {
    return true;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    fromServer.end();
    if (!outputShut || resetOnClose) {
      server.peerEnded(resetOnClose);
    }
  }

  @Override
  public SocketAddress getLocalSocketAddress() {
    return local;
  }

  @Override
  public SocketAddress getRemoteSocketAddress() {
    return remote;
  }

  @Override
  public String toString() {
    return "MemorySocket[" + local + " -> " + remote + (closed ? ", closed]" : "]");
  }
}
