package io.thriftnio.pool.internal;

import java.net.InetSocketAddress;
import java.util.function.Predicate;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.transport.TTransport;

/** One pooled synchronous connection: its transport and the generated client over it. */
public final class SyncConnection<C extends TServiceClient> {
  public final InetSocketAddress endpoint;
  public final TTransport transport;
  public final C client;

  public SyncConnection(InetSocketAddress endpoint, TTransport transport, C client) {
    this.endpoint = endpoint;
    this.transport = transport;
    this.client = client;
  }

  /** Cheap check after a call: open, and the last reply read to its end. */
  public boolean isClean() {
    return transport.isOpen() && !SocketTransports.hasUnreadBytes(transport);
  }

  /** Full check of an idle connection, with the user's validator; never throws. */
  public boolean validate(Predicate<? super C> validator) {
    try {
      return isClean()
          && SocketTransports.peerSilent(transport)
          && (validator == null || validator.test(client));
    } catch (RuntimeException e) {
      return false;
    }
  }

  public void close() {
    transport.close();
  }
}
