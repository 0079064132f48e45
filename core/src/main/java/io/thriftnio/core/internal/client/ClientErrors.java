package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.ChannelClosedException;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.util.internal.ProtocolBytes;
import io.thriftnio.core.wire.FirstBytes;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.regex.Pattern;
import org.apache.thrift.transport.TTransportException;

/**
 * Every failure a client connection reports, made in one place so that each transport gives the
 * same exception type, {@link TTransportException} type code and text for the same failure. Peers
 * are written as the caller gave them. Not part of the API.
 */
public final class ClientErrors {
  private static final Pattern ANNOTATED_ADDRESS = Pattern.compile(": [^ ]*:[0-9]+$");
  private static final Pattern NATIVE_CALL =
      Pattern.compile("^[A-Za-z_]+\\(\\.\\.\\) failed(?: with error\\(-?[0-9]+\\))?: ");

  private ClientErrors() {}

  /**
   * The address as the caller gave it, written as every exception of this library writes one
   * ({@code localhost/127.0.0.1:9090}); an unresolved one as {@code host:port}.
   */
  public static String peer(SocketAddress address) {
    if (address instanceof InetSocketAddress && ((InetSocketAddress) address).isUnresolved()) {
      InetSocketAddress a = (InetSocketAddress) address;
      return a.getHostString() + ":" + a.getPort();
    }
    return String.valueOf(address);
  }

  /** {@code NOT_OPEN}: {@code cannot connect to host:port: <cause>}. */
  public static TTransportException connectFailed(SocketAddress address, Throwable cause) {
    return new TTransportException(
        TTransportException.NOT_OPEN,
        "cannot connect to " + peer(address) + ": " + describe(cause),
        cause);
  }

  /** {@code TIMED_OUT}: no answer to the connect within the connect timeout. */
  public static TTransportException connectTimedOut(SocketAddress address, long timeoutMillis) {
    return new TTransportException(
        TTransportException.TIMED_OUT,
        "cannot connect to "
            + peer(address)
            + ": no answer within connectTimeout "
            + timeoutMillis
            + " ms");
  }

  /** {@code NOT_OPEN}: the resources a connection was asked of are closed. */
  public static TTransportException resourcesClosed(SocketAddress address) {
    return new TTransportException(
        TTransportException.NOT_OPEN,
        "cannot connect to " + peer(address) + ": client resources closed");
  }

  /** {@code UNKNOWN}, interrupted while connecting; the caller restores the interrupt flag. */
  public static TTransportException connectInterrupted(SocketAddress address, Throwable cause) {
    return new TTransportException(
        TTransportException.UNKNOWN, "interrupted while connecting to " + peer(address), cause);
  }

  /** {@code NOT_OPEN}: the TLS handshake failed. */
  public static TTransportException handshakeFailed(SocketAddress address, Throwable cause) {
    return new TTransportException(
        TTransportException.NOT_OPEN,
        "TLS handshake with " + peer(address) + " failed: " + tlsFailure(cause),
        cause);
  }

  /**
   * A failed handshake's text; when the server closed during it, the likely cause: a plaintext
   * server, which closes at a ClientHello.
   */
  private static String tlsFailure(Throwable cause) {
    String text = JdkTls.describe(cause);
    boolean closed = false;
    for (Throwable t = cause; t != null && !closed; t = t.getCause()) {
      String m = t.getMessage();
      closed =
          t instanceof java.nio.channels.ClosedChannelException
              || t instanceof java.io.EOFException
              || (m != null && (m.contains("closed") || m.contains("Closed")));
    }
    return closed ? text + "; " + FirstBytes.TLS_ON_PLAINTEXT : text;
  }

  /** {@code TIMED_OUT}: the TLS handshake did not complete within its timeout. */
  public static TTransportException handshakeTimedOut(SocketAddress address, long timeoutMillis) {
    return new TTransportException(
        TTransportException.TIMED_OUT,
        "TLS handshake with " + peer(address) + " timed out after " + timeoutMillis + " ms");
  }

  /** {@code NOT_OPEN}: a call made on a channel that is closed; nothing was sent. */
  public static ChannelClosedException channelClosed(SocketAddress address, String reason) {
    return new ChannelClosedException(
        "channel to " + peer(address) + " is closed (" + reason + "); call not sent");
  }

  /**
   * A call that was waiting when its connection closed: {@code END_OF_FILE}, or the type of a
   * {@link TTransportException} cause (a response over {@code maxFrameSize} is {@code
   * CORRUPTED_DATA}).
   */
  public static TTransportException connectionClosed(
      SocketAddress address, int pendingCalls, String reason, Throwable cause) {
    return new TTransportException(
        typeOf(cause, TTransportException.END_OF_FILE),
        "connection to "
            + peer(address)
            + " closed with "
            + pendingCalls
            + " calls pending: "
            + reason,
        cause);
  }

  /**
   * {@code TIMED_OUT}: a call outlived its timeout, in the words every client and pool uses: {@code
   * no response to echo from host/10.0.0.7:9090 within callTimeout 200 ms} and {@code after}.
   *
   * @param method the call's method, or {@code null} if unknown
   * @param after what became of the connection, e.g. {@code "; transport closed"}
   * @param behind see {@link CallTimeoutException#behindTimedOutCall()}
   */
  public static CallTimeoutException noResponse(
      SocketAddress address, String method, long timeoutMillis, String after, boolean behind) {
    return new CallTimeoutException(
        "no response"
            + (method != null ? " to " + method : "")
            + " from "
            + peer(address)
            + " within callTimeout "
            + timeoutMillis
            + " ms"
            + after,
        behind);
  }

  /**
   * {@code TIMED_OUT}: a channel call outlived its timeout; it fails alone and the channel stays
   * open. {@code written}: the request had left (else the connection was not draining); {@code
   * behind}: an earlier call on the connection had timed out and still owed its reply.
   *
   * @param method the call's method, or {@code null} if unknown
   */
  public static CallTimeoutException callTimedOut(
      SocketAddress address,
      String method,
      long timeoutMillis,
      int pendingCalls,
      boolean written,
      boolean behind) {
    String where =
        !written
            ? " before it could be written (the connection is not draining)"
            : behind ? " behind an earlier call that had timed out" : "";
    return noResponse(
        address,
        method,
        timeoutMillis,
        where + " (" + pendingCalls + " calls were pending)",
        behind);
  }

  /**
   * {@code TIMED_OUT}: a sync transport's read outlived its timeout; the transport is closed. The
   * message names the call's method when the request's header could be read.
   *
   * @param method the method of the request last sent, or {@code null} if unknown
   * @param cause the IO library's timeout (a {@code SocketTimeoutException}), or {@code null}
   */
  public static CallTimeoutException readTimedOut(
      SocketAddress address, long timeoutMillis, String method, Throwable cause) {
    CallTimeoutException e =
        noResponse(address, method, timeoutMillis, "; transport closed", false);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  /** {@code NOT_OPEN}: an operation on a sync transport that is closed. */
  public static TTransportException transportClosed(SocketAddress address, String operation) {
    return new TTransportException(
        TTransportException.NOT_OPEN,
        "cannot " + operation + ": transport to " + peer(address) + " is closed");
  }

  /** {@code END_OF_FILE}: the peer closed while a sync transport waited for a response. */
  public static TTransportException closedByPeer(SocketAddress address) {
    return closedByPeer(address, null);
  }

  /**
   * {@code END_OF_FILE}: the peer closed while a sync transport waited for a response; {@code
   * shape} when no reply had come on the connection yet ({@link #shape}), else {@code null}.
   */
  public static TTransportException closedByPeer(SocketAddress address, String shape) {
    return new TTransportException(
        TTransportException.END_OF_FILE,
        "connection to "
            + peer(address)
            + " closed by the peer while waiting for a response"
            + beforeAnyReply(shape));
  }

  /**
   * How a connection's requests look, for {@link #beforeAnyReply}: {@code
   * ClientOptions.wireKind(FRAMED), plaintext}.
   */
  public static String shape(ClientOptions options) {
    return "ClientOptions.wireKind("
        + options.wireKind()
        + "), "
        + (options.tls().isPresent() ? "TLS" : "plaintext");
  }

  /**
   * What a close before any reply adds: the likely cause, a server that does not accept the
   * connection's shape; the empty string for {@code null} (replies had come).
   */
  public static String beforeAnyReply(String shape) {
    if (shape == null) {
      return "";
    }
    return " (before any reply on this connection: does the server accept this client's shape, "
        + shape
        + ", and its protocol? A server of this library logs the first bytes it refused and the"
        + " setting that serves them)";
  }

  /**
   * The words for a reply in another protocol than the client's: {@code reply from host:port is in
   * TBinaryProtocol (first bytes 80 01 00 03); this client uses TCompactProtocol: give the server
   * and the client the same protocol}; {@code null} when the reply's protocol cannot be told or is
   * the client's.
   *
   * @param first the reply's first bytes
   * @param count how many
   * @param clientProtocol the client's protocol name ({@link FirstBytes#protocolName}), or null
   */
  public static String replyInOtherProtocol(
      SocketAddress address, byte[] first, int count, String clientProtocol) {
    return ProtocolBytes.replyInOtherProtocol(address, first, count, clientProtocol);
  }

  /** A sync transport's connection failed: the type of a transport cause, else {@code UNKNOWN}. */
  public static TTransportException connectionFailed(SocketAddress address, Throwable cause) {
    return connectionFailed(address, null, cause, "");
  }

  /**
   * A connection failed under a call (reset by the peer, say), in the words every client and pool
   * uses: {@code connection to host/10.0.0.7:9090 failed during call echo: Connection reset}, then
   * {@code after}; the type of a transport cause, else {@code UNKNOWN}.
   *
   * @param method the call's method, or {@code null} if unknown (then {@code failed: ...})
   * @param after what a channel adds, e.g. {@code " (2 calls were pending)"}, or the empty string
   */
  public static TTransportException connectionFailed(
      SocketAddress address, String method, Throwable cause, String after) {
    return new TTransportException(
        typeOf(cause, TTransportException.UNKNOWN),
        "connection to "
            + peer(address)
            + " failed"
            + (method != null ? " during call " + method : "")
            + ": "
            + describe(cause)
            + after,
        cause);
  }

  /** {@code CORRUPTED_DATA}: the peer sent a frame no call asked for; the connection is closed. */
  public static TTransportException protocolViolation(
      SocketAddress address, int frameBytes, String when) {
    return new TTransportException(
        TTransportException.CORRUPTED_DATA,
        "protocol violation: a frame of "
            + frameBytes
            + " bytes arrived from "
            + peer(address)
            + " "
            + when
            + "; connection closed");
  }

  /** {@code UNKNOWN}: interrupted while waiting; the transport is closed. */
  public static TTransportException interrupted(SocketAddress address, Throwable cause) {
    return new TTransportException(
        TTransportException.UNKNOWN,
        "interrupted while waiting for a response from " + peer(address) + "; transport closed",
        cause);
  }

  /**
   * A short text for a failure, the same whatever IO library raised it: the message without the
   * address that some libraries append, or the class name where there is no message; a frame size
   * violation without its peer, which the caller's message names already.
   */
  public static String describe(Throwable cause) {
    if (cause == null) {
      return "unknown reason";
    }
    if (cause instanceof FrameSizeException) {
      FrameSizeException f = (FrameSizeException) cause;
      String text =
          f.length() > f.maxFrameSize()
              ? "frame length " + f.length() + " exceeds maxFrameSize " + f.maxFrameSize()
              : "frame length "
                  + f.length()
                  + " is invalid (expected: 1.."
                  + f.maxFrameSize()
                  + ")";
      byte[] first = new byte[4];
      Framing.encodeLength(f.length(), first, 0);
      String hint = FirstBytes.replyHint(first, 4, WireKind.FRAMED);
      return hint == null ? text : text + ": " + hint;
    }
    String message = cause.getMessage();
    if (message == null || message.isEmpty()) {
      return cause.getClass().getSimpleName();
    }
    // Netty appends ": localhost/127.0.0.1:9090" to the JDK's text (the caller's message names
    // it), and its native transports prefix the system call: "finishConnect(..) failed with
    // error(-111): Connection refused". Both go, so the text is the same on every transport.
    message = ANNOTATED_ADDRESS.matcher(message).replaceFirst("");
    return NATIVE_CALL.matcher(message).replaceFirst("");
  }

  /** The frame-size failure of {@code cause}, restated against {@code address}. */
  public static FrameSizeException frameSize(FrameSizeException cause, SocketAddress address) {
    return new FrameSizeException(cause.length(), cause.maxFrameSize(), address);
  }

  /** The type of a transport exception {@code cause}, else {@code otherwise}. */
  private static int typeOf(Throwable cause, int otherwise) {
    return cause instanceof TTransportException t ? t.getType() : otherwise;
  }
}
