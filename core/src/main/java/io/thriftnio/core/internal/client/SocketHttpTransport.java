package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.WireEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;

/**
 * The HTTP sync transport of every {@code ClientIo}, plain or over the JDK's TLS: a blocking socket
 * driven by the caller's thread, like {@code THttpClient} on one keep-alive connection.
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
  private final SSLContext tlsContext;
  private final long readTimeoutMillis;
  private final Runnable onClose;

  private Socket socket;

  /** The connection's wire: a new one with each connection (one ended with the last). */
  private ClientCodec codec;

  /** The plain connection's channel, probed before it is reused; {@code null} over TLS. */
  private SocketChannel probe;

  /** Whether a call has used the connection: only then can the server have ended it. */
  private boolean used;

  private InputStream in;
  private ReplyDeadline deadline;
  private OutputStream out;
  private byte[] buf = new byte[READ_BUFFER_SIZE];
  private byte[] request = new byte[0];
  private volatile boolean closed;

  private SocketHttpTransport(
      InetSocketAddress address, ClientOptions options, SSLContext tlsContext, Runnable onClose)
      throws TTransportException {
    super(address, options.maxFrameSize());
    this.options = options;
    this.tlsContext = tlsContext;
    this.readTimeoutMillis = options.callTimeout().toMillis();
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
    BlockingSockets.connect(s, address, options.connectTimeout(), options.callTimeout());
    if (tlsContext == null) {
      return s;
    }
    return BlockingSockets.handshake(
        s,
        tlsContext,
        options.tls().get(),
        address,
        ClientErrors.peer(address),
        options.callTimeout());
  }

  private void open(Socket s) throws TTransportException {
    try {
      deadline = new ReplyDeadline(s, readTimeoutMillis);
      in = deadline.bound(s.getInputStream());
      out = s.getOutputStream();
    } catch (IOException e) {
      BlockingSockets.closeQuietly(s);
      throw ClientErrors.connectFailed(address, e);
    }
    socket = s;
    codec = ClientCodec.of(options, address, ClientErrors.peer(address));
    used = false;
  }

  /**
   * Whether the server ended a kept-alive connection after its last response (an idle timeout, say)
   * without saying so: the end of the stream, or bytes no call asked for, are already here. A read
   * attempt that does not wait; over TLS there is no such probe (it would consume a record under
   * the TLS socket), and such a connection fails the call that finds it ended.
   */
  boolean endedWhileIdle() {
    return probe != null && !BlockingSockets.quiet(probe);
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
      BlockingSockets.closeQuietly(socket);
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
      // Nothing of this call was written: connect again, transparently.
      BlockingSockets.closeQuietly(socket);
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
    ByteBuffer message = ByteBuffer.wrap(frame, Framing.HEADER_SIZE, body);
    Map<String, String> headers = takeRequestHeaders();
    byte[] head; // a oneway call's empty 200 is read as a reply
    try {
      TException refused = codec.refusal(message, headers);
      if (refused != null) {
        throw refused;
      }
      head = codec.head(message, false, headers, 0, takeTimeoutMillis(readTimeoutMillis));
    } catch (TException e) {
      // Nothing was written: the transport stays usable.
      throw new TTransportException(TTransportException.UNKNOWN, e.getMessage(), e);
    }
    int total = head.length + body;
    if (request.length < total) {
      request = new byte[total];
    }
    System.arraycopy(head, 0, request, 0, head.length);
    System.arraycopy(frame, Framing.HEADER_SIZE, request, head.length, body);
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
    deadline.start(); // callTimeout bounds the whole response, not each read
    int available = 0;
    WireEvent event;
    try {
      while (true) {
        if (available == buf.length) {
          buf = Arrays.copyOf(buf, buf.length * 2);
        }
        int n = in.read(buf, available, buf.length - available);
        if (n < 0) {
          if (available == 0) {
            close();
            throw closedBeforeResponse();
          }
          event = codec.endOfStream(ByteSource.of(buf), 0, available);
          break;
        }
        available += n;
        event = codec.next(ByteSource.of(buf), 0, available);
        if (event != WireEvent.NEED_MORE) {
          break;
        }
      }
    } catch (SocketTimeoutException e) {
      close(); // a late response would otherwise be read by the next call
      throw ClientErrors.readTimedOut(address, readTimeoutMillis, lastMethod(), e);
    } catch (IOException e) {
      if (closed) {
        throw ClientErrors.transportClosed(address, "read"); // closed by another thread
      }
      close();
      throw ClientErrors.connectionFailed(address, lastMethod(), e, "");
    }
    Decoded d = codec.decoded();
    if (event == WireEvent.REFUSED) {
      close();
      Exception refused = d.refusal().exception();
      throw refused instanceof TTransportException
          ? (TTransportException) refused
          : new TTransportException(TTransportException.CORRUPTED_DATA, d.refusal().reason());
    }
    if (available > d.consumed()) {
      close();
      throw ClientErrors.protocolViolation(
          address, available - d.consumed(), "after a whole HTTP response, with no call waiting");
    }
    if (d.closeAfter() != null) {
      // The next call connects again, before it writes anything.
      BlockingSockets.closeQuietly(socket);
      socket = null;
    }
    if (event == WireEvent.FAILED) {
      throw (TTransportException) d.failure(); // an HttpStatusException: the transport goes on
    }
    replied(codec.replyHeaders());
    // A new array per reply, as libthrift's transports do: the protocols hand out binary fields
    // as views of it, which a caller may still hold when the next call's reply arrives.
    byte[] reply = d.payloadArray();
    if (reply == null) {
      int from = d.payloadOffset();
      reply = Arrays.copyOfRange(buf, from, from + d.payloadLength());
    }
    setFrame(reply, reply.length);
    if (buf.length > 4 * READ_BUFFER_SIZE) {
      buf = new byte[READ_BUFFER_SIZE]; // a large response does not pin its buffer
    }
  }

  /**
   * {@code END_OF_FILE}: the server closed the connection after the call was sent and before any
   * byte of its response; the call may have run, so it is not sent again.
   */
  private TTransportException closedBeforeResponse() {
    return new TTransportException(
        TTransportException.END_OF_FILE,
        "connection to "
            + ClientErrors.peer(address)
            + " closed by the server after the call was sent, before any response; the call may"
            + " have run, so it is not sent again");
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

  @Override
  public String toString() {
    return "SocketHttpTransport{" + ClientErrors.peer(address) + (closed ? ", closed}" : "}");
  }
}
