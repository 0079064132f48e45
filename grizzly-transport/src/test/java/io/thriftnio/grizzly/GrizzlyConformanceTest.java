package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;
import static io.thriftnio.core.WireKind.HTTP;
import static io.thriftnio.core.WireKind.UNFRAMED;
import static io.thriftnio.testkit.conformance.ServerCell.HTTP_PATH;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.conformance.ServerConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance suite on Grizzly servers: each of the three strategies against stock,
 * sync-transport and channel clients, and with the wire kinds (unframed, HTTP) and their stock and
 * library clients; TLS on WORKER.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class GrizzlyConformanceTest extends ServerConformanceSuite {

  @Parameter ServerCell<GrizzlyThriftServer.Builder> cell;

  static Stream<ServerCell<GrizzlyThriftServer.Builder>> cells() {
    ClientTls clientTls = TestPki.shared().clientTls().build();
    ServerTls serverTls = TestPki.shared().serverTls().build();
    List<ServerCell<GrizzlyThriftServer.Builder>> all = new ArrayList<>();
    // Representative (the cells the newest-JDK and oldest-libthrift legs run): stock TSocket, the
    // library's own sync transport, and stock THttpClient, each on one strategy.
    for (IoStrategy s : List.of(SAME_THREAD, WORKER, LEADER_FOLLOWER)) {
      ServerCell<GrizzlyThriftServer.Builder> server = GrizzlyCells.defaults(s);
      ServerCell<GrizzlyThriftServer.Builder> stock = server.withClient(ClientKinds.stockSocket());
      all.add(s == WORKER ? stock.asRepresentative() : stock);
      ServerCell<GrizzlyThriftServer.Builder> sync =
          server.withClient(GrizzlyClientKinds.syncTransport());
      all.add(s == LEADER_FOLLOWER ? sync.asRepresentative() : sync);
      all.add(server.withClient(GrizzlyClientKinds.channel()));
      ServerCell<GrizzlyThriftServer.Builder> unframed = server.withWires(UNFRAMED);
      all.add(unframed.withClient(ClientKinds.stockUnframedSocket()));
      all.add(unframed.withClient(GrizzlyClientKinds.unframedSyncTransport()));
      all.add(unframed.withClient(GrizzlyClientKinds.unframedChannel()));
      ServerCell<GrizzlyThriftServer.Builder> http = server.withWires(UNFRAMED, HTTP);
      ServerCell<GrizzlyThriftServer.Builder> stockHttp =
          http.withClient(ClientKinds.stockHttp(HTTP_PATH));
      all.add(s == WORKER ? stockHttp.asRepresentative() : stockHttp);
      all.add(http.withClient(ClientKinds.stockHttpApache(HTTP_PATH)));
      all.add(http.withClient(GrizzlyHttpClientKinds.syncTransport(HTTP_PATH)));
      all.add(http.withClient(GrizzlyHttpClientKinds.channel(HTTP_PATH)));
    }
    ServerCell<GrizzlyThriftServer.Builder> tls =
        GrizzlyCells.defaults(WORKER).withTls("tls", serverTls);
    all.add(tls.withClient(GrizzlyClientKinds.tlsChannel()));
    ServerCell<GrizzlyThriftServer.Builder> tlsUnframed = tls.withWires(UNFRAMED);
    all.add(
        tlsUnframed.withClient(
            ClientKinds.stockUnframedSocket(TestPki.shared().clientSocketFactory())));
    all.add(tlsUnframed.withClient(GrizzlyClientKinds.tlsUnframedSyncTransport()));
    all.add(tlsUnframed.withClient(GrizzlyClientKinds.tlsUnframedChannel()));
    all.add(
        GrizzlyCells.twoIoThreads(WORKER)
            .withTls("tls", serverTls)
            .withWires(UNFRAMED, HTTP)
            .withClient(
                ClientKinds.stockHttpsApache(HTTP_PATH, TestPki.shared().sslContext(null))));
    ServerCell<GrizzlyThriftServer.Builder> tlsHttp = tls.withWires(UNFRAMED, HTTP);
    all.add(tlsHttp.withClient(GrizzlyHttpClientKinds.syncTransport(HTTP_PATH, clientTls)));
    all.add(tlsHttp.withClient(GrizzlyHttpClientKinds.channel(HTTP_PATH, clientTls)));
    return Cells.select(GrizzlyConformanceTest.class, all);
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
