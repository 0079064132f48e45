package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the stock socket factories ({@code ClientTransportFactory.stock}: framed, unframed, TLS) say
 * when a call times out or a connect fails: the peer, the method and the limit, in the words of
 * this library's own transports.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StockFactoryMessagesTest {

  private static final Duration SECOND = Duration.ofSeconds(1);
  private static final Duration READ_TIMEOUT = Duration.ofMillis(300);

  private static ThriftClientPool<BenchService.Client> pool(
      ClientTransportFactory factory, InetSocketAddress endpoint) {
    return ThriftClientPool.builder(BenchService.Client::new)
        .endpoints(endpoint)
        .transportFactory(factory)
        .build();
  }

  /** A listener that never accepts: connects complete in its backlog, requests go unanswered. */
  private static ServerSocket silentPeer() throws Exception {
    return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  private static void assertReadTimeout(Throwable e, InetSocketAddress peer) {
    assertThat(e).isExactlyInstanceOf(CallTimeoutException.class);
    assertThat(((TTransportException) e).getType()).isEqualTo(TTransportException.TIMED_OUT);
    assertThat(e.getMessage())
        .isEqualTo(
            "no response to get_last_sale from "
                + peer
                + " within callTimeout 300 ms; transport closed");
    assertThat(e).hasRootCauseInstanceOf(SocketTimeoutException.class);
  }

  @Test
  void aFramedSocketReadTimeoutNamesThePeerTheMethodAndTheTimeout() throws Exception {
    try (ServerSocket silent = silentPeer()) {
      InetSocketAddress peer = (InetSocketAddress) silent.getLocalSocketAddress();
      try (ThriftClientPool<BenchService.Client> pool =
          pool(
              ClientTransportFactory.stock(
                  ClientOptions.builder().connectTimeout(SECOND).callTimeout(READ_TIMEOUT).build()),
              peer)) {
        assertThatThrownBy(() -> pool.call(c -> c.get_last_sale("A")))
            .satisfies(e -> assertReadTimeout(e, peer));
      }
    }
  }

  @Test
  void anUnframedSocketReadTimeoutNamesThePeerTheMethodAndTheTimeout() throws Exception {
    try (ServerSocket silent = silentPeer()) {
      InetSocketAddress peer = (InetSocketAddress) silent.getLocalSocketAddress();
      try (ThriftClientPool<BenchService.Client> pool =
          pool(
              ClientTransportFactory.stock(
                  ClientOptions.builder()
                      .connectTimeout(SECOND)
                      .callTimeout(READ_TIMEOUT)
                      .wireKind(WireKind.UNFRAMED)
                      .build()),
              peer)) {
        assertThatThrownBy(() -> pool.call(c -> c.get_last_sale("A")))
            .satisfies(e -> assertReadTimeout(e, peer));
      }
    }
  }

  @Test
  void aFramedTlsReadTimeoutNamesThePeerTheMethodAndTheTimeout() throws Exception {
    TestPki pki = TestPki.shared();
    try (SSLServerSocket silent =
        (SSLServerSocket)
            pki.sslContext(pki.serverKeys())
                .getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      InetSocketAddress peer = (InetSocketAddress) silent.getLocalSocketAddress();
      // Completes the handshake, then reads what comes and never answers.
      Thread reader =
          new Thread(
              () -> {
                try (SSLSocket s = (SSLSocket) silent.accept();
                    InputStream in = s.getInputStream()) {
                  while (in.read() >= 0) {
                    // requests are read and never answered
                  }
                } catch (Exception closed) {
                  // the client closed on its timeout, or the test closed the listener: done
                }
              },
              "silent-tls-peer");
      reader.setDaemon(true);
      reader.start();
      try (ThriftClientPool<BenchService.Client> pool =
          pool(
              ClientTransportFactory.stock(
                  ClientOptions.builder()
                      .connectTimeout(SECOND)
                      .callTimeout(READ_TIMEOUT)
                      .tls(pki.clientTls().build())
                      .build()),
              peer)) {
        assertThatThrownBy(() -> pool.call(c -> c.get_last_sale("A")))
            .satisfies(e -> assertReadTimeout(e, peer));
      }
    }
  }

  @Test
  void aRefusedConnectSaysRefusedAndNamesTheAddress() throws Exception {
    InetSocketAddress closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = (InetSocketAddress) s.getLocalSocketAddress();
    }
    InetSocketAddress dead = closed;
    assertThatThrownBy(
            () ->
                ClientTransportFactory.stock(
                        ClientOptions.builder().connectTimeout(SECOND).callTimeout(SECOND).build())
                    .open(dead))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN))
        .hasMessage("cannot connect to " + dead + ": Connection refused");
  }

  @Test
  void aConnectTimeoutSaysTimedOutWithTheLimit() throws Exception {
    // A listener that never accepts, with its backlog filled: further SYNs go unanswered.
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = (InetSocketAddress) full.getLocalSocketAddress();
      ClientTransportFactory factory =
          ClientTransportFactory.stock(
              ClientOptions.builder()
                  .connectTimeout(Duration.ofMillis(300))
                  .callTimeout(SECOND)
                  .build());
      List<AutoCloseable> fillers = new ArrayList<>();
      try {
        TTransportException timedOut = null;
        for (int attempt = 0; attempt < 8 && timedOut == null; attempt++) {
          try {
            TTransport t = factory.open(address);
            fillers.add(t::close);
            Socket filler = new Socket();
            fillers.add(filler);
            try {
              filler.connect(address, 300);
            } catch (SocketTimeoutException queueFull) {
              // The backlog is full already: exactly the state the next attempt needs.
            }
          } catch (TTransportException e) {
            timedOut = e;
          }
        }
        assertThat(timedOut).as("a connect attempt timed out").isNotNull();
        assertThat(timedOut.getType()).isEqualTo(TTransportException.TIMED_OUT);
        assertThat(timedOut)
            .hasMessage(
                "cannot connect to " + address + ": no answer within connectTimeout 300 ms");
      } finally {
        for (AutoCloseable c : fillers) {
          c.close();
        }
      }
    }
  }
}
