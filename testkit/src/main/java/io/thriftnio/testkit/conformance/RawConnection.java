package io.thriftnio.testkit.conformance;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.memory.InMemoryThriftServer;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.apache.thrift.TBase;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TIOStreamTransport;

/**
 * A socket (plain, or TLS with {@link #open(InetSocketAddress, SSLSocketFactory)}) for writing
 * exact bytes (good or bad frames) and reading raw frames back, so that tests control what crosses
 * the wire. Not thread-safe.
 */
public final class RawConnection implements AutoCloseable {

  private static final TConfiguration CONFIG = new TConfiguration();

  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;

  private RawConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
    this.in = new DataInputStream(socket.getInputStream());
  }

  /** A connection the server closed during the TLS handshake: writes and reads fail at once. */
  private RawConnection(Socket closed, IOException why) {
    this.socket = closed;
    this.out =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new SocketException("closed by the server during the TLS handshake: " + why);
          }
        };
    this.in = new DataInputStream(InputStream.nullInputStream());
  }

  /**
   * Connects with a 10 s connect timeout and a 30 s read timeout; to an {@link
   * InMemoryThriftServer} bound at {@code address} in memory, without a socket.
   */
  public static RawConnection open(InetSocketAddress address) throws IOException {
    Socket memory = InMemoryThriftServer.connect(address);
    if (memory != null) {
      memory.setSoTimeout(30_000);
      return new RawConnection(memory);
    }
    Socket s = new Socket();
    s.setTcpNoDelay(true);
    s.connect(address, 10_000);
    s.setSoTimeout(30_000);
    return new RawConnection(s);
  }

  /**
   * Connects like {@link #open(InetSocketAddress)}, then speaks TLS through {@code tls}: the bytes
   * written and read are those inside the TLS records. The handshake is run here; if the server
   * refuses it (closes at once, say over its connection limit), the connection is returned anyway
   * and shows as closed to {@link #awaitClosedBy(Duration)}.
   */
  public static RawConnection open(InetSocketAddress address, SSLSocketFactory tls)
      throws IOException {
    Socket plain = new Socket();
    plain.setTcpNoDelay(true);
    plain.connect(address, 10_000);
    plain.setSoTimeout(30_000);
    SSLSocket s =
        (SSLSocket) tls.createSocket(plain, address.getHostString(), address.getPort(), true);
    try {
      s.startHandshake();
    } catch (SSLException | SocketException refused) {
      s.close();
      return new RawConnection(s, refused); // the test sees a closed connection
    }
    return new RawConnection(s);
  }

  /** This side's address of the connection, as the server sees it as the peer's. */
  public InetSocketAddress localAddress() {
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  /** Writes bytes as they are. */
  public RawConnection write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  /** Writes a length prefix and the payload. */
  public RawConnection writeFrame(byte[] payload) throws IOException {
    return write(frame(payload));
  }

  /** Reads one frame's payload. */
  public byte[] readFrame() throws IOException {
    int length = in.readInt();
    if (length <= 0 || length > Framing.DEFAULT_MAX_FRAME_SIZE) {
      throw new IOException("bad frame length from server: " + length);
    }
    byte[] payload = new byte[length];
    in.readFully(payload);
    return payload;
  }

  /**
   * Waits until the server closes the connection, discarding up to 16 MiB that arrives first (an
   * error reply, say).
   *
   * @param within how long to wait
   * @return the bytes that arrived before the close
   * @throws AssertionError if the connection is still open after {@code within}
   */
  public byte[] awaitClosedBy(Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    if (socket.isClosed()) {
      return received.toByteArray(); // closed by the server during the TLS handshake
    }
    InputStream raw = socket.getInputStream();
    while (true) {
      long leftMillis = (deadline - System.nanoTime()) / 1_000_000;
      if (leftMillis <= 0) {
        throw new AssertionError(
            "connection still open after " + within + " (" + received.size() + " bytes received)");
      }
      socket.setSoTimeout((int) Math.max(1, leftMillis));
      int n;
      try {
        n = raw.read(buf);
      } catch (SocketTimeoutException e) {
        continue;
      } catch (SocketException | SSLException reset) {
        return received.toByteArray(); // a reset (or a TLS connection cut short) is a close too
      }
      if (n < 0) {
        return received.toByteArray();
      }
      if (received.size() < (16 << 20)) {
        received.write(buf, 0, n);
      }
    }
  }

  /** Half-closes: sends a FIN, keeps reading. */
  public void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  /** Aborts the connection with a TCP reset instead of a FIN. */
  public void reset() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** Prefixes {@code payload} with its length. */
  public static byte[] frame(byte[] payload) {
    byte[] f = new byte[Framing.HEADER_SIZE + payload.length];
    Framing.encodeLength(payload.length, f, 0);
    System.arraycopy(payload, 0, f, Framing.HEADER_SIZE, payload.length);
    return f;
  }

  /** Encodes one call message (no length prefix). */
  public static byte[] encodeCall(
      TProtocolFactory protocol, String method, byte type, int seqid, TBase<?, ?> args)
      throws TException {
    FrameOutputTransport t = FrameLength.output(CONFIG);
    TProtocol p = protocol.getProtocol(t);
    p.writeMessageBegin(new TMessage(method, type, seqid));
    args.write(p);
    p.writeMessageEnd();
    ByteBuffer payload = t.payload();
    byte[] bytes = new byte[payload.remaining()];
    payload.get(bytes);
    return bytes;
  }

  /** Encodes a two-way call. */
  public static byte[] encodeCall(
      TProtocolFactory protocol, String method, int seqid, TBase<?, ?> args) throws TException {
    return encodeCall(protocol, method, TMessageType.CALL, seqid, args);
  }

  /**
   * Decodes a reply message into {@code result}.
   *
   * @return the reply's message header
   * @throws org.apache.thrift.TApplicationException if the reply is an exception message
   */
  public static TMessage decodeReply(TProtocolFactory protocol, byte[] payload, TBase<?, ?> result)
      throws TException {
    return readReply(
        protocol.getProtocol(FrameInputTransport.of(CONFIG, ByteBuffer.wrap(payload))), result);
  }

  private static TMessage readReply(TProtocol p, TBase<?, ?> result) throws TException {
    TMessage msg = p.readMessageBegin();
    if (msg.type == TMessageType.EXCEPTION) {
      throw org.apache.thrift.TApplicationException.readFrom(p);
    }
    result.read(p);
    p.readMessageEnd();
    return msg;
  }

  /**
   * Reads one unframed reply (a message straight off the stream, no length prefix) into {@code
   * result}, as a bare {@code TSocket} client would.
   *
   * @return the reply's message header
   * @throws org.apache.thrift.TApplicationException if the reply is an exception message
   */
  public TMessage readUnframedReply(TProtocolFactory protocol, TBase<?, ?> result)
      throws TException {
    // Nothing reads ahead: the protocol takes exactly the reply's bytes off the stream.
    return readReply(protocol.getProtocol(new TIOStreamTransport(CONFIG, in)), result);
  }

  /** Reads exactly {@code n} bytes or fails; for tests that read partial data. */
  public byte[] readExactly(int n) throws IOException {
    byte[] b = new byte[n];
    try {
      in.readFully(b);
    } catch (EOFException e) {
      throw new EOFException("connection closed before " + n + " bytes arrived");
    }
    return b;
  }

  /** An HTTP response read off the connection: status, header section and body. */
  public record HttpAnswer(int status, String head, byte[] body) {
    /** A header field's value (name case-insensitive), or {@code null}. */
    public String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }
  }

  /**
   * Reads one HTTP response: its head up to the empty line, then {@code Content-Length} bytes of
   * body (none without one). Fails if the connection ends first.
   */
  public HttpAnswer readHttpResponse() throws IOException {
    StringBuilder head = new StringBuilder();
    while (!(head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n"))) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed inside an HTTP response head: " + head);
      }
      head.append((char) b);
      if (head.length() > 65_536) {
        throw new IOException("HTTP response head over 64 KiB");
      }
    }
    String text = head.toString();
    String[] statusLine = text.substring(0, text.indexOf("\r\n")).split(" ", 3);
    HttpAnswer headOnly = new HttpAnswer(Integer.parseInt(statusLine[1]), text, new byte[0]);
    String length = headOnly.header("Content-Length");
    byte[] body = length == null ? new byte[0] : readExactly(Integer.parseInt(length));
    return new HttpAnswer(headOnly.status(), text, body);
  }
}
