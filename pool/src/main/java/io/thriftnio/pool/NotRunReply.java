package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;

/**
 * A {@link ThriftChannelPool} attempt answered with a "not run" refusal: the reply, whole, which
 * the caller decodes as it would any reply if no other endpoint takes the call, and the refusal
 * read from it (the cause, so that {@link Failures#notRun} sees it). Internal to the pool: a caller
 * never sees this exception.
 */
final class NotRunReply extends TException {
  private static final long serialVersionUID = 1L;

  /** The reply as the channel gave it. */
  final transient ByteBuffer reply;

  NotRunReply(ByteBuffer reply, TApplicationException refusal, InetSocketAddress endpoint) {
    super(Names.endpoint(endpoint) + " refused the call: " + refusal.getMessage(), refusal);
    this.reply = reply;
  }
}
