package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;

/**
 * {@code tsocket-sasl}: a stock {@code TSocket} under libthrift's own {@code TSaslClientTransport}
 * (PLAIN, {@code auth}; {@link BenchSasl}), one lane per connection; {@code tsocket}'s SASL twin,
 * so that a scenario of blocking stock clients measures a server framed and SASL side by side.
 * Plain TCP only; named only (not part of {@code all}).
 */
final class TSocketSaslKind implements ClientKindRow {

  @Override
  public String name() {
    return ClientKindRow.named("tsocket", WireKind.SASL);
  }

  @Override
  public WireKind wireKind() {
    return WireKind.SASL;
  }

  @Override
  public boolean listed() {
    return false;
  }

  @Override
  public String cannotRun(CellSpec cell) {
    if (cell.tls() != null) {
      return name() + " speaks SASL on plain TCP only (" + cell.server() + " serves TLS)";
    }
    return null;
  }

  @Override
  public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
    return Lanes.syncConnections(
        cell, address, a -> BenchSasl.openTSocket(a, cell.callTimeout()), null);
  }
}
