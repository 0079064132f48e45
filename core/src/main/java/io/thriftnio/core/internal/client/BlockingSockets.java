package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.tls.ClientTls;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The blocking-socket steps every sync transport takes (core's framed and HTTP transports, the
 * pool's stock {@code TSocket} factories): connect within a timeout, the JDK TLS handshake within
 * its own, read a run of bytes whole, look at an idle connection without blocking, close without a
 * second failure. Each step closes what it was given when it fails, and says what failed with the
 * peer and the timeout. Not part of the API.
 */
public final class BlockingSockets {

  private BlockingSockets() {}

  /**
   * Connects {@code socket} with {@code TCP_NODELAY}, its read timeout set; closes it on failure.
   *
   * @param readTimeout the socket's {@code SO_TIMEOUT} once connected; zero waits forever
   * @throws TTransportException {@code TIMED_OUT} after {@code connectTimeout} (at least 1 ms),
   *     {@code NOT_OPEN} if refused or unreachable
   */
  public static void connect(
      Socket socket, InetSocketAddress address, Duration connectTimeout, Duration readTimeout)
      throws TTransportException {
    int connectMillis = millis(connectTimeout);
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(clamp(readTimeout.toMillis()));
      socket.connect(address, connectMillis);
    } catch (SocketTimeoutException e) {
      closeQuietly(socket);
      throw ClientErrors.connectTimedOut(address, connectMillis);
    } catch (IOException | RuntimeException e) {
      closeQuietly(socket);
      throw ClientErrors.connectFailed(address, e);
    }
  }

  /**
   * The client side of a TLS handshake over the connected {@code plain} socket, within {@code
   * tls.handshakeTimeout()}; then the read timeout applies. Closes the socket on failure.
   *
   * @param peer how errors name the peer
   * @throws TTransportException {@code TIMED_OUT} after the handshake timeout, {@code NOT_OPEN}
   *     when it fails (the cause described as {@link JdkTls#describe} does)
   */
  public static SSLSocket handshake(
      Socket plain,
      SSLContext context,
      ClientTls tls,
      InetSocketAddress address,
      String peer,
      Duration readTimeout)
      throws TTransportException {
    String host = tls.peerHost(address);
    int handshakeMillis = millis(tls.handshakeTimeout());
    SSLSocket ssl = null;
    try {
      ssl =
          (SSLSocket) context.getSocketFactory().createSocket(plain, host, address.getPort(), true);
      ssl.setUseClientMode(true);
      ssl.setSSLParameters(JdkTls.clientParameters(ssl.getSSLParameters(), tls, host));
      ssl.setSoTimeout(handshakeMillis);
      ssl.startHandshake();
      ssl.setSoTimeout(clamp(readTimeout.toMillis()));
      return ssl;
    } catch (SocketTimeoutException e) {
      closeQuietly(ssl != null ? ssl : plain);
      throw new TTransportException(
          TTransportException.TIMED_OUT,
          "TLS handshake with " + peer + " timed out after " + handshakeMillis + " ms",
          e);
    } catch (IOException | RuntimeException e) {
      closeQuietly(ssl != null ? ssl : plain);
      throw new TTransportException(
          TTransportException.NOT_OPEN,
          "TLS handshake with " + peer + " failed: " + JdkTls.describe(e),
          e);
    }
  }

  /** Reads {@code len} bytes into {@code buf} from {@code off}; false if the stream ended first. */
  public static boolean readFully(InputStream in, byte[] buf, int off, int len) throws IOException {
    int done = 0;
    while (done < len) {
      int n = in.read(buf, off + done, len - done);
      if (n < 0) {
        return false;
      }
      done += n;
    }
    return true;
  }

  /**
   * Whether an idle connection is quiet: reads at most one byte without blocking. Nothing read
   * means quiet; the end of the stream (a server restarted, an idle timeout) or a byte nobody asked
   * for means the connection must not carry another call. The byte, if any, is lost, which is
   * harmless since the connection is then closed. Never throws: a channel that cannot be looked at
   * is not quiet.
   */
  public static boolean quiet(SocketChannel channel) {
    if (!channel.isOpen() || !channel.isConnected()) {
      return false;
    }
    ByteBuffer one = ByteBuffer.allocate(1);
    try {
      boolean blocking = channel.isBlocking();
      if (blocking) {
        channel.configureBlocking(false);
      }
      try {
        return channel.read(one) == 0;
      } finally {
        if (blocking) {
          channel.configureBlocking(true);
        }
      }
    } catch (IOException | RuntimeException e) {
      return false; // reset by the peer, say: unusable either way, and nothing was written
    }
  }

  /** Closes {@code c} if not {@code null}; a failure to close is ignored. */
  public static void closeQuietly(Closeable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (IOException e) {
      // closing is all that is left to do with it: the descriptor is released even when close
      // reports an error, and the caller's outcome does not change
    }
  }

  /** A timeout in whole milliseconds for a socket option: at least 1, at most an int. */
  public static int millis(Duration timeout) {
    return clamp(Math.max(1, timeout.toMillis()));
  }

  private static int clamp(long millis) {
    return (int) Math.min(Integer.MAX_VALUE, millis);
  }
}
