package io.thriftnio.core.util.internal;

import org.apache.thrift.transport.TTransportException;

/**
 * A call that passed its {@code callTimeout}: a {@code TTransportException} of type {@code
 * TIMED_OUT}, whose message names the method, the server and the setting ({@code no response to
 * echo from host/10.0.0.7:9090 within callTimeout 200 ms}), on every client and pool. A sync
 * transport, and a pooled stock async client, close their connection (the message says so). On a
 * channel only this call failed. Its request keeps its place in the connection's reply order, since
 * Thrift peers answer a connection's requests in order, and its late reply is read and dropped when
 * it comes; the connection and the other calls on it carry on (see {@code ThriftChannel}).
 *
 * <p>{@link #behindTimedOutCall()} tells a call that only waited behind another timed-out call on
 * the same connection (head-of-line blocking) from one the server itself was slow to answer.
 */
public final class CallTimeoutException extends TTransportException {
  private static final long serialVersionUID = 1L;

  private final boolean behindTimedOutCall;

  /**
   * @param message what timed out, with the peer, the timeout and the calls pending
   * @param behindTimedOutCall see {@link #behindTimedOutCall()}
   */
  public CallTimeoutException(String message, boolean behindTimedOutCall) {
    super(TIMED_OUT, message);
    this.behindTimedOutCall = behindTimedOutCall;
  }

  /**
   * Whether an earlier call on the same connection had timed out, and still owed its reply, when
   * this call timed out. Replies come in request order, so this call could not be answered before
   * that one: its timeout says nothing new about the server, and the pools do not count it against
   * the endpoint.
   */
  public boolean behindTimedOutCall() {
    return behindTimedOutCall;
  }
}
