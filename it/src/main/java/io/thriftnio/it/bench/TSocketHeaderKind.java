package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;

/**
 * {@code tsocket-header}: a stock {@code TSocket} under the bench's own {@link
 * THeaderSocketTransport}, one lane per connection; {@code tsocket}'s THeader twin, so that a
 * scenario of blocking stock clients measures a server framed and THeader side by side. Plain only;
 * named only (not part of {@code all}).
 */
final class TSocketHeaderKind implements ClientKindRow {

  @Override
  public String name() {
    return ClientKindRow.named("tsocket", WireKind.HEADER);
  }

  @Override
  public WireKind wireKind() {
    return WireKind.HEADER;
  }

  @Override
  public boolean listed() {
    return false;
  }

  @Override
  public String cannotRun(CellSpec cell) {
    if (cell.tls() != null) {
      return name() + " speaks plain THeader only (" + cell.server() + " serves TLS)";
    }
    return null;
  }

  @Override
  public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
    return Lanes.syncConnections(cell, address, a -> open(a, cell.callTimeout()), null);
  }

  /**
   * A THeader connection over a stock {@code TSocket}, open.
   *
   * @param readTimeout the longest a call waits for its reply; also the connect timeout
   */
  static TTransport open(InetSocketAddress address, Duration readTimeout) throws Exception {
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, readTimeout.toMillis()));
    TSocket socket =
        new TSocket(
            new TConfiguration(), address.getHostString(), address.getPort(), millis, millis);
    TTransport header = new THeaderSocketTransport(socket, Framing.DEFAULT_MAX_FRAME_SIZE);
    header.open();
    return header;
  }
}
