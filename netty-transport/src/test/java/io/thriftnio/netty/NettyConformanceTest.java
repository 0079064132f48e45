package io.thriftnio.netty;

import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;
import static io.thriftnio.core.WireKind.HTTP;
import static io.thriftnio.core.WireKind.UNFRAMED;
import static io.thriftnio.testkit.conformance.ServerCell.HTTP_PATH;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.conformance.ServerConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance suite on Netty servers: each strategy on NIO against stock, sync-transport and
 * channel clients; the wire kinds (unframed, HTTP) with their stock and library clients; TLS with
 * the JDK's and OpenSSL's providers; epoll and io_uring with their own client event loops.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class NettyConformanceTest extends ServerConformanceSuite {

  @Parameter ServerCell<NettyThriftServer.Builder> cell;

  static Stream<ServerCell<NettyThriftServer.Builder>> cells() {
    ClientTls clientTls = TestPki.shared().clientTls().build();
    ServerTls serverTls = TestPki.shared().serverTls().build();
    List<ServerCell<NettyThriftServer.Builder>> all = new ArrayList<>();
    // Representative (the cells the newest-JDK and oldest-libthrift legs run): stock TSocket, the
    // library's own sync transport, and stock THttpClient, each on one strategy.
    for (IoStrategy s : List.of(SAME_THREAD, WORKER)) {
      ServerCell<NettyThriftServer.Builder> nio = NettyCells.nio(s);
      ServerCell<NettyThriftServer.Builder> stock = nio.withClient(ClientKinds.stockSocket());
      all.add(s == WORKER ? stock.asRepresentative() : stock);
      ServerCell<NettyThriftServer.Builder> sync = nio.withClient(NettyClientKinds.syncTransport());
      all.add(s == SAME_THREAD ? sync.asRepresentative() : sync);
      all.add(nio.withClient(NettyClientKinds.asyncChannel()));
      ServerCell<NettyThriftServer.Builder> unframed = nio.withWires(UNFRAMED);
      all.add(unframed.withClient(ClientKinds.stockUnframedSocket()));
      all.add(unframed.withClient(NettyClientKinds.unframedSyncTransport()));
      all.add(unframed.withClient(NettyClientKinds.unframedChannel()));
      ServerCell<NettyThriftServer.Builder> http = nio.withWires(UNFRAMED, HTTP);
      ServerCell<NettyThriftServer.Builder> stockHttp =
          http.withClient(ClientKinds.stockHttp(HTTP_PATH));
      all.add(s == WORKER ? stockHttp.asRepresentative() : stockHttp);
      all.add(http.withClient(ClientKinds.stockHttpApache(HTTP_PATH)));
      all.add(http.withClient(NettyHttpClientKinds.syncTransport(HTTP_PATH)));
      all.add(http.withClient(NettyHttpClientKinds.channel(HTTP_PATH)));
    }
    ServerCell<NettyThriftServer.Builder> tls = NettyCells.auto(WORKER).withTls("tls", serverTls);
    all.add(tls.withClient(NettyClientKinds.syncTransport(clientTls)));
    ServerCell<NettyThriftServer.Builder> tlsUnframed = tls.withWires(UNFRAMED);
    all.add(
        tlsUnframed.withClient(
            ClientKinds.stockUnframedSocket(TestPki.shared().clientSocketFactory())));
    all.add(tlsUnframed.withClient(NettyClientKinds.unframedSyncTransport(clientTls)));
    all.add(tlsUnframed.withClient(NettyClientKinds.unframedChannel(clientTls)));
    all.add(
        NettyCells.nio(WORKER)
            .withTls("tls", serverTls)
            .withWires(UNFRAMED, HTTP)
            .withClient(
                ClientKinds.stockHttpsApache(HTTP_PATH, TestPki.shared().sslContext(null))));
    ServerCell<NettyThriftServer.Builder> tlsHttp = tls.withWires(UNFRAMED, HTTP);
    all.add(tlsHttp.withClient(NettyHttpClientKinds.syncTransport(HTTP_PATH, clientTls)));
    all.add(tlsHttp.withClient(NettyHttpClientKinds.channel(HTTP_PATH, clientTls)));
    all.add(
        NettyCells.auto(SAME_THREAD)
            .withTls("openssl", TestPki.shared().serverTls().provider(TlsProvider.OPENSSL).build())
            .withClient(
                NettyClientKinds.asyncChannel(
                    TestPki.shared().clientTls().provider(TlsProvider.OPENSSL).build()))
            .withTag(Cells.NATIVE_TRANSPORT)
            .withRequirement(NativeSupport::assumeOpenSsl));
    for (NettyTransportType t : List.of(NettyTransportType.EPOLL, NettyTransportType.IO_URING)) {
      ServerCell<NettyThriftServer.Builder> onNative = NettyCells.on(t, SAME_THREAD);
      all.add(onNative.withClient(NettyClientKinds.syncTransport(t)));
      all.add(onNative.withClient(NettyClientKinds.asyncChannel(t)));
    }
    return Cells.select(NettyConformanceTest.class, all);
  }

  @BeforeParameterizedClassInvocation
  static void cellRunsHere(ServerCell<?> cell) {
    cell.requirement().run();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return cell.newBuilder();
  }

  @Override
  protected IoStrategy strategy() {
    return cell.strategy();
  }

  @Override
  protected ClientKind clientKind() {
    return cell.clientKind();
  }

  @Override
  protected boolean servesHttp() {
    return cell.servesHttp();
  }

  @Override
  protected ServerTls serverTls() {
    return cell.tls();
  }
}
