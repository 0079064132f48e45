package io.thriftnio.core;

import java.net.SocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * A call refused by a {@link ThriftChannel} because as many calls as its {@code maxPendingCalls}
 * already wait for their responses on the connection. Nothing was sent: the channel stays open and
 * usable, and the call may be retried once earlier calls have completed. The message carries the
 * numbers and the peer, e.g. {@code pending calls: 1024 (limit: 1024) to /127.0.0.1:9090}.
 */
public final class TooManyPendingCallsException extends TTransportException {
  private static final long serialVersionUID = 1L;

  private final int pendingCalls;
  private final int maxPendingCalls;

  /**
   * @param pendingCalls the calls waiting for responses when this one was refused
   * @param maxPendingCalls the channel's limit
   * @param peer the remote address, or {@code null} if unknown
   */
  public TooManyPendingCallsException(int pendingCalls, int maxPendingCalls, SocketAddress peer) {
    super(
        UNKNOWN,
        "pending calls: "
            + pendingCalls
            + " (limit: "
            + maxPendingCalls
            + ")"
            + (peer != null ? " to " + peer : "")
            + "; call not sent");
    this.pendingCalls = pendingCalls;
    this.maxPendingCalls = maxPendingCalls;
  }

  /** The calls waiting for responses when this one was refused. */
  public int pendingCalls() {
    return pendingCalls;
  }

  /** The channel's limit. */
  public int maxPendingCalls() {
    return maxPendingCalls;
  }
}
