package io.thriftnio.core.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.util.internal.Subjects;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import javax.net.ssl.SSLContext;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * The sync transport of {@link io.thriftnio.core.WireKind#SASL}: libthrift's own {@code
 * TSaslClientTransport}, a well-kept implementation of this wire for blocking sockets, over a
 * {@code TSocket} on a socket connected (and, with TLS, handshaken) as every sync transport of this
 * library is. The negotiation runs in {@link #connect} on the caller's thread, inside the Subject's
 * {@code doAs} when the settings carry one; each of its reads waits at most the negotiation
 * timeout. Frames and negotiation messages are bounded by {@code maxFrameSize} through the socket's
 * {@code TConfiguration} (libthrift 0.25 checks both against it). Not part of the API.
 */
public final class SaslSocketTransport {

  private static final String PEER_FAILURE = "Peer indicated failure: ";

  private SaslSocketTransport() {}

  /**
   * Connects, negotiates and returns the open transport.
   *
   * @param onClose runs once when the transport closes
   * @throws SaslNegotiationException if the negotiation fails, with the server's reason when it
   *     sent one
   * @throws TTransportException {@code NOT_OPEN} or {@code TIMED_OUT} if the connect fails
   */
  static TTransport connect(InetSocketAddress address, ClientOptions options, Runnable onClose)
      throws TTransportException {
    ClientSasl sasl = options.sasl().orElseThrow();
    Socket socket = new Socket();
    BlockingSockets.connect(socket, address, options.connectTimeout(), sasl.negotiationTimeout());
    if (options.tls().isPresent()) {
      SSLContext context = JdkTls.clientContext(options.tls().get(), "the SASL sync transport");
      socket =
          BlockingSockets.handshake(
              socket,
              context,
              options.tls().get(),
              address,
              ClientErrors.peer(address),
              sasl.negotiationTimeout());
    }
    TSaslClientTransport transport;
    DeadlineSocket tsocket;
    try {
      // The negotiation's reads wait negotiationTimeout each; the calls' replies, callTimeout
      // whole.
      tsocket = new DeadlineSocket(socket, address, 0, true, options.maxFrameSize());
      tsocket.getConfiguration().setMaxFrameSize(options.maxFrameSize());
      SaslClient client = sasl.newSaslClient();
      transport = new Closing(client, tsocket, address, onClose);
    } catch (SaslException | TTransportException | RuntimeException e) {
      BlockingSockets.closeQuietly(socket);
      throw new SaslNegotiationException(
          sasl.mechanism(), address, "the mechanism is not available: " + e.getMessage(), e);
    }
    negotiate(transport, sasl, address);
    try {
      socket.setSoTimeout(BlockingSockets.millis(options.callTimeout()));
      tsocket.callTimeout(BlockingSockets.millis(options.callTimeout()));
    } catch (SocketException e) {
      transport.close();
      throw ClientErrors.connectFailed(address, e);
    }
    return transport;
  }

  /**
   * Negotiates over {@code socket}, connected and blocking, and leaves it open for frames that are
   * not wrapped: for a stock client that speaks framed Thrift once the negotiation is done (the
   * async pool's {@code TNonblockingSocket}s). Each read waits at most the negotiation timeout; the
   * socket's read timeout is then 0 again.
   *
   * @throws SaslNegotiationException if the negotiation fails, or the server chose a quality of
   *     protection that wraps frames; the socket is closed then
   */
  public static void negotiateUnwrapped(
      Socket socket, ClientSasl sasl, InetSocketAddress address, int maxFrameSize)
      throws TTransportException {
    TSaslClientTransport transport;
    try {
      socket.setSoTimeout(BlockingSockets.millis(sasl.negotiationTimeout()));
      TSocket tsocket = new TSocket(socket);
      tsocket.getConfiguration().setMaxFrameSize(maxFrameSize);
      transport = new TSaslClientTransport(sasl.newSaslClient(), tsocket);
    } catch (SaslException | TTransportException | SocketException | RuntimeException e) {
      BlockingSockets.closeQuietly(socket);
      throw new SaslNegotiationException(
          sasl.mechanism(), address, "the mechanism is not available: " + e.getMessage(), e);
    }
    negotiate(transport, sasl, address);
    Object qop = transport.getSaslClient().getNegotiatedProperty(Sasl.QOP);
    if (qop != null && !"auth".equalsIgnoreCase(qop.toString())) {
      transport.close();
      throw new SaslNegotiationException(
          sasl.mechanism(),
          address,
          "the server chose " + qop + " (expected: auth: this connection sends frames unwrapped)",
          null);
    }
    try {
      transport.getSaslClient().dispose(); // nothing is wrapped: the mechanism's work is done
      socket.setSoTimeout(0);
    } catch (SaslException | SocketException e) {
      transport.close();
      throw ClientErrors.connectFailed(address, e);
    }
  }

  private static void negotiate(
      TSaslClientTransport transport, ClientSasl sasl, InetSocketAddress address)
      throws SaslNegotiationException {
    try {
      Subjects.call(
          sasl.subject().orElse(null),
          () -> {
            transport.open();
            return null;
          });
    } catch (Exception e) {
      transport.close();
      throw failed(sasl, address, e);
    }
  }

  /**
   * The negotiation's failure, in this library's words, with the server's reason if it sent one.
   */
  private static SaslNegotiationException failed(
      ClientSasl sasl, InetSocketAddress address, Exception e) {
    String message = String.valueOf(e.getMessage());
    String reason;
    if (message.startsWith(PEER_FAILURE)) {
      reason = message.substring(PEER_FAILURE.length());
    } else if (message.startsWith("Invalid status")) {
      reason = message + ": the server may not speak SASL (a framed or unframed server?)";
    } else if (e instanceof TTransportException
        && (((TTransportException) e).getType() == TTransportException.END_OF_FILE
            || e.getCause() instanceof java.net.SocketException)) {
      // A reset is a close too: the server closed before reading all the START message.
      reason =
          "the server closed the connection during the negotiation; it may not accept SASL"
              + " (a framed-only server closes on the START message)";
    } else if (e instanceof TTransportException && e.getCause() instanceof SocketTimeoutException) {
      reason =
          "no answer within "
              + sasl.negotiationTimeout()
              + " (negotiationTimeout); the server may not accept SASL";
    } else {
      reason = message;
    }
    return new SaslNegotiationException(sasl.mechanism(), address, reason, e);
  }

  /** Runs the registry's hook once when closed. */
  private static final class Closing extends TSaslClientTransport {
    private final Runnable onClose;
    private final Object lock = new Object();

    @GuardedBy("lock")
    private boolean closed;

    private final String mechanism;
    private final InetSocketAddress address;

    Closing(SaslClient client, TTransport underlying, InetSocketAddress address, Runnable onClose)
        throws TTransportException {
      super(client, underlying);
      this.mechanism = client.getMechanismName();
      this.address = address;
      this.onClose = onClose;
    }

    /**
     * A wrapped frame the mechanism discards (its integrity check failed: the JDK's DIGEST-MD5
     * returns nothing) reads as nothing; libthrift would report "Cannot read. Remote side has
     * closed". It fails as a frame that does not unwrap, as on the channels.
     */
    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
      int n = super.read(buf, off, len);
      if (n == 0 && len > 0) {
        throw new TTransportException(
            TTransportException.CORRUPTED_DATA,
            "SASL "
                + mechanism
                + " reply from "
                + address
                + " does not unwrap: the mechanism discarded it (its integrity or sequence check"
                + " failed)");
      }
      return n;
    }

    /**
     * Refuses a size a reply declares (a string's bytes, a container's least bytes) over {@code
     * maxFrameSize} before the protocol allocates for it: libthrift's own bound is its {@code
     * maxMessageSize}, 100 MB by default.
     */
    @Override
    public void checkReadBytesAvailable(long numBytes) throws TTransportException {
      int limit = getUnderlyingTransport().getConfiguration().getMaxFrameSize();
      if (numBytes > limit) {
        throw new TTransportException(
            TTransportException.MESSAGE_SIZE_LIMIT,
            "a size of " + numBytes + " bytes declared in a reply exceeds maxFrameSize " + limit);
      }
      super.checkReadBytesAvailable(numBytes);
    }

    @Override
    public void close() {
      super.close();
      synchronized (lock) {
        if (closed) {
          return;
        }
        closed = true;
      }
      onClose.run();
    }
  }
}
