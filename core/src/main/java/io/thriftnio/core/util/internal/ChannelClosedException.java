package io.thriftnio.core.util.internal;

import org.apache.thrift.transport.TTransportException;

/**
 * A call refused by a {@code ThriftChannel} because the channel had closed: nothing was sent, so
 * the call may go to another connection whatever its method. A {@code TTransportException} of type
 * {@code NOT_OPEN}; the message names the peer and why the channel closed, e.g. {@code channel to
 * 10.0.0.7:9090 is closed (closed by the peer); call not sent}.
 */
public final class ChannelClosedException extends TTransportException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what was refused and why, with the peer
   */
  public ChannelClosedException(String message) {
    super(NOT_OPEN, message);
  }
}
