package io.thriftnio.it.bench;

import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.testkit.sasl.PlainClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;

/**
 * The bench's SASL: PLAIN with the {@code auth} quality of protection, one fixed user, on plain TCP
 * (loopback benches only). What a SASL row costs per call beside framed is then the negotiation per
 * connection and nothing per call but the wire kind's own path: under {@code auth} the frames are
 * framed frames.
 */
final class BenchSasl {
  static final String USER = "bench";
  private static final String PASSWORD = "bench-secret";

  private BenchSasl() {}

  /** A server's settings: PLAIN for {@link #USER}, allowed without TLS. */
  static ServerSasl server() {
    return ServerSasl.builder()
        .plain((user, password) -> USER.equals(user) && PASSWORD.equals(new String(password)))
        .plainWithoutTls(true) // the bench runs on loopback
        .build();
  }

  /** A client's settings: PLAIN as {@link #USER}. */
  static ClientSasl client() {
    return ClientSasl.plain(USER, PASSWORD.toCharArray());
  }

  /**
   * libthrift's own {@code TSaslClientTransport} (PLAIN) over a stock {@code TSocket}, open.
   *
   * @param readTimeout the longest a call waits for its reply; also the connect timeout
   */
  static TTransport openTSocket(InetSocketAddress address, Duration readTimeout) throws Exception {
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, readTimeout.toMillis()));
    TSocket socket =
        new TSocket(
            new TConfiguration(), address.getHostString(), address.getPort(), millis, millis);
    TTransport sasl =
        new TSaslClientTransport(new PlainClient(null, USER, PASSWORD.toCharArray()), socket);
    sasl.open();
    return sasl;
  }
}
