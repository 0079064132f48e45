package io.thriftnio.core.util.internal;

import java.net.SocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * A call refused by a {@code ThriftChannel} because as many calls as its {@code
 * maxCallsInFlightPerConnection} already wait for their responses on the connection. Nothing was
 * sent: the channel stays open and usable, and the call may be retried once earlier calls have
 * completed. The message carries the numbers and the peer, e.g. {@code pending calls: 1024 (limit:
 * 1024) to /127.0.0.1:9090}.
 */
public final class TooManyCallsInFlightException extends TTransportException {
  private static final long serialVersionUID = 1L;

  private final int pendingCalls;
  private final int maxCallsInFlightPerConnection;

  /**
   * @param pendingCalls the calls waiting for responses when this one was refused
   * @param maxCallsInFlightPerConnection the channel's limit
   * @param peer the remote address, or {@code null} if unknown
   */
  public TooManyCallsInFlightException(
      int pendingCalls, int maxCallsInFlightPerConnection, SocketAddress peer) {
    super(
        UNKNOWN,
        "pending calls: "
            + pendingCalls
            + " (limit: "
            + maxCallsInFlightPerConnection
            + ")"
            + (peer != null ? " to " + peer : "")
            + "; call not sent");
    this.pendingCalls = pendingCalls;
    this.maxCallsInFlightPerConnection = maxCallsInFlightPerConnection;
  }

  /** The calls waiting for responses when this one was refused. */
  public int callsInFlight() {
    return pendingCalls;
  }

  /** The channel's limit. */
  public int maxCallsInFlightPerConnection() {
    return maxCallsInFlightPerConnection;
  }
}
