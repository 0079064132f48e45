package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.Framing;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.internal.server.HttpResponseReader;
import io.thriftnio.core.tls.ClientTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The HTTP sync transport of every {@code ClientResources}, plain or over the JDK's TLS: a blocking
 * socket driven by the caller's thread, like {@code THttpClient} on one keep-alive connection.
 *
 * <pre>
 *  write() write()   buffered, as for a frame
 *  flush()           POST head + body in one write, then the whole response is read:
 *                    200: its body is the reply (empty for a oneway call), read() returns it
 *                    other status: {@link io.thriftnio.core.HttpStatusException}
 * </pre>
 *
 * <p>Reading the response at {@code flush()}, as {@code THttpClient} does, keeps the socket in step
 * with the calls: a oneway call's empty {@code 200} is consumed before the next call. A response
 * that ends the connection ({@code Connection: close}, HTTP/1.0, a body up to the end of the
 * stream) closes the socket, and the next call connects again before it writes anything. A
 * connection that ends after a call was written fails that call: it may have run, so it is not sent
 * again. Other failures close the transport. Not part of the API.
 */
public final class SocketHttpTransport extends FramedClientTransport {

  private static final int READ_BUFFER_SIZE = 8 * 1024;

  private final ClientOptions options;
  private final HttpCalls calls;
  private final HttpResponseReader reader;
  private final SSLContext tlsContext;
  private final long readTimeoutMillis;
  private final Runnable onClose;
  private final HttpResponseReader.BulkSource source =
      new HttpResponseReader.BulkSource() {
        @Override
        public byte get(int index) {
          return buf[index];
        }

        @Override
        public void copy(int index, byte[] dst, int offset, int length) {
          System.arraycopy(buf, index, dst, offset, length);
        }
      };

  private Socket socket;

  /** The plain connection's channel, probed before it is reused; {@code null} over TLS. */
  private SocketChannel probe;

  private final ByteBuffer probeBuffer = ByteBuffer.allocate(1);

  /** Whether a call has used the connection: only then can the server have ended it. */
  private boolean used;

  private InputStream in;
  private OutputStream out;
  private byte[] buf = new byte[READ_BUFFER_SIZE];
  private byte[] request = new byte[0];
  private volatile boolean closed;

  private SocketHttpTransport(
      InetSocketAddress address, ClientOptions options, SSLContext tlsContext, Runnable onClose)
      throws TTransportException {
    super(address, options.maxFrameSize());
    this.options = options;
    this.calls = new HttpCalls(address, options.httpPath());
    this.reader = new HttpResponseReader(options.maxFrameSize());
    this.tlsContext = tlsContext;
    this.readTimeoutMillis = options.readTimeout().toMillis();
    this.onClose = onClose;
  }

  /**
   * Connects within the options' connect timeout, and over TLS when the options carry it (JDK
   * provider only).
   *
   * @param onClose runs once when the transport closes
   * @throws TTransportException {@code NOT_OPEN} if refused, {@code TIMED_OUT} after the timeout
   */
  public static SocketHttpTransport connect(
      InetSocketAddress address, ClientOptions options, Runnable onClose)
      throws TTransportException {
    SSLContext context =
        options.tls().isPresent()
            ? JdkTls.clientContext(options.tls().get(), "the HTTP sync transport")
            : null;
    SocketHttpTransport t = new SocketHttpTransport(address, options, context, onClose);
    t.open(t.dial());
    return t;
  }

  private Socket dial() throws TTransportException {
    Socket s;
    try {
      // A channel's socket, so that a plain connection can be probed without blocking (below).
      probe = tlsContext == null ? SocketChannel.open() : null;
      s = probe != null ? probe.socket() : new Socket();
    } catch (IOException e) {
      throw ClientErrors.connectFailed(address, e);
    }
    long connectMillis = Math.max(1, options.connectTimeout().toMillis());
    try {
      s.setTcpNoDelay(true);
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, options.readTimeout().toMillis()));
      s.connect(address, (int) Math.min(Integer.MAX_VALUE, connectMillis));
    } catch (SocketTimeoutException e) {
      closeQuietly(s);
      throw ClientErrors.connectTimedOut(address, connectMillis);
    } catch (IOException | RuntimeException e) {
      closeQuietly(s);
      throw ClientErrors.connectFailed(address, e);
    }
    if (tlsContext == null) {
      return s;
    }
    return handshake(s, options.tls().get());
  }

  private Socket handshake(Socket plain, ClientTls tls) throws TTransportException {
    String host = tls.peerHost(address);
    long handshakeMillis = Math.max(1, tls.handshakeTimeout().toMillis());
    try {
      SSLSocket s =
          (SSLSocket)
              tlsContext.getSocketFactory().createSocket(plain, host, address.getPort(), true);
      s.setSSLParameters(JdkTls.clientParameters(s.getSSLParameters(), tls, host));
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, handshakeMillis));
      try {
        s.startHandshake();
      } catch (SocketTimeoutException e) {
        closeQuietly(s);
        throw ClientErrors.handshakeTimedOut(address, handshakeMillis);
      } catch (IOException e) {
        closeQuietly(s);
        throw ClientErrors.handshakeFailed(address, e);
      }
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, readTimeoutMillis));
      return s;
    } catch (IOException e) {
      closeQuietly(plain);
      throw ClientErrors.handshakeFailed(address, e);
    }
  }

  private void open(Socket s) throws TTransportException {
    try {
      in = s.getInputStream();
      out = s.getOutputStream();
    } catch (IOException e) {
      closeQuietly(s);
      throw ClientErrors.connectFailed(address, e);
    }
    socket = s;
    used = false;
  }

  /**
   * Whether the server ended a kept-alive connection after its last response (an idle timeout, say)
   * without saying so: the end of the stream, or bytes no call asked for, are already here. A read
   * attempt that does not wait; over TLS there is no such probe (it would consume a record under
   * the TLS socket), and such a connection fails the call that finds it ended.
   */
  boolean endedWhileIdle() {
    if (probe == null) {
      return false;
    }
    try {
      probe.configureBlocking(false);
      try {
        probeBuffer.clear();
        return probe.read(probeBuffer) != 0;
      } finally {
        probe.configureBlocking(true);
      }
    } catch (IOException e) {
      return true; // reset by the peer, say: unusable either way, and nothing was written
    }
  }

  @Override
  public boolean isOpen() {
    return !closed;
  }

  /** Closes the socket; a later read or flush fails with {@code NOT_OPEN}. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    dropFrame();
    if (socket != null) {
      closeQuietly(socket);
    }
    onClose.run();
    notifyClosed();
  }

  @Override
  protected void checkOpen(String operation) throws TTransportException {
    if (closed) {
      throw ClientErrors.transportClosed(address, operation);
    }
  }

  @Override
  protected void sendFrame(byte[] frame, int length) throws TTransportException {
    dropFrame(); // whatever the last reply left unread is not this call's
    if (socket != null && used && endedWhileIdle()) {
      closeQuietly(socket); // nothing of this call was written: connect again, transparently
      socket = null;
    }
    if (socket == null) {
      try {
        open(dial()); // the server ended the last connection after a whole response
      } catch (TTransportException e) {
        close();
        throw e;
      }
    }
    int body = length - Framing.HEADER_SIZE;
    int total = calls.headLength(body) + body;
    if (request.length < total) {
      request = new byte[total];
    }
    int at = calls.writeHead(body, request, 0);
    System.arraycopy(frame, Framing.HEADER_SIZE, request, at, body);
    used = true;
    try {
      out.write(request, 0, total);
      out.flush();
    } catch (IOException e) {
      close();
      throw ClientErrors.connectionFailed(address, e);
    }
    receiveResponse();
  }

  private void receiveResponse() throws TTransportException {
    reader.reset();
    int available = 0;
    int length;
    try {
      while (true) {
        if (available == buf.length) {
          buf = Arrays.copyOf(buf, buf.length * 2);
        }
        int n = in.read(buf, available, buf.length - available);
        if (n < 0) {
          if (available == 0) {
            close();
            throw calls.closedBeforeResponse();
          }
          length = reader.endOfStream(available);
          break;
        }
        available += n;
        length = reader.next(source, 0, available);
        if (length != HttpResponseReader.NEED_MORE) {
          break;
        }
      }
    } catch (HttpResponseReader.Malformed e) {
      close();
      throw calls.malformed(e);
    } catch (SocketTimeoutException e) {
      close(); // a late response would otherwise be read by the next call
      throw ClientErrors.readTimedOut(address, readTimeoutMillis);
    } catch (IOException e) {
      if (closed) {
        throw ClientErrors.transportClosed(address, "read"); // closed by another thread
      }
      close();
      throw ClientErrors.connectionFailed(address, e);
    }
    if (available > length) {
      close();
      throw ClientErrors.protocolViolation(
          address, available - length, "after a whole HTTP response, with no call waiting");
    }
    if (!reader.keepAlive()) {
      closeQuietly(socket); // the next call connects again, before it writes anything
      socket = null;
    }
    calls.checkStatus(reader, source, 0);
    // A new array per reply, as libthrift's transports do: the protocols hand out binary fields
    // as views of it, which a caller may still hold when the next call's reply arrives.
    byte[] reply = new byte[reader.bodyLength()];
    if (reader.chunked()) {
      reader.copyBody(source, 0, reply);
    } else {
      System.arraycopy(buf, reader.bodyStart(), reply, 0, reader.bodyLength());
    }
    setFrame(reply, reader.bodyLength());
    if (buf.length > 4 * READ_BUFFER_SIZE) {
      buf = new byte[READ_BUFFER_SIZE]; // a large response does not pin its buffer
    }
  }

  @Override
  protected void receiveFrame() throws TTransportException {
    close();
    throw new TTransportException(
        TTransportException.CORRUPTED_DATA,
        "read past the reply from "
            + ClientErrors.peer(address)
            + ": each HTTP call's reply is read whole at flush(); transport closed");
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing is all that is left to do with this socket; a failure changes nothing for the
      // caller
    }
  }

  @Override
  public String toString() {
    return "SocketHttpTransport{" + ClientErrors.peer(address) + (closed ? ", closed}" : "}");
  }
}
