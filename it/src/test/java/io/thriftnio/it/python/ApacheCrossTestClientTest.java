package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.it.Rows;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import thrift.test.ThriftTest;

/**
 * Apache Thrift's own cross-language test client, {@code test/py/TestClient.py --protocol header}
 * with {@code --transport buffered} (Python's {@code THeaderProtocol} straight on the socket) and
 * {@code --transport framed} (over a {@code TFramedTransport}: each THeader frame inside a framed
 * frame of its own), against every server row that accepts {@link WireKind#HEADER}, serving {@code
 * ThriftTest} ({@link ThriftTestHandler}): 22 checks of every type, container, exception and
 * oneway.
 *
 * <p>{@code TestClient.py}, its {@code util.py} and {@code ThriftTest.thrift} come unmodified from
 * Apache Thrift 0.17.0's release tarball, brought by {@code scripts/apache-thrift-tests.sh} from
 * Debian's source package (cached outside the tree); the generated code is checked in ({@code
 * src/test/gen-java}, {@code src/test/gen-py}, by {@code scripts/regenerate-thrift.sh}). Skipped
 * without Python 3 or without those files (no {@code apt-get}) unless {@code
 * thriftnio.requirePython=true} or {@code THRIFTNIO_REQUIRE_PYTHON=1} (as {@code .ci/run} sets).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ApacheCrossTestClientTest {

  /** The test methods of 0.17.0's {@code TestClient.py} (its {@code HeaderTest} case). */
  private static final int TESTS = 22;

  private static final Pattern RAN = Pattern.compile("Ran (\\d+) tests?");
  private static final Map<Rows.Server, ThriftServer> SERVERS = new LinkedHashMap<>();
  private static Path testPy;
  private static String unavailable;

  @BeforeAll
  @Timeout(value = 8, unit = TimeUnit.MINUTES) // the venv on a first build; apt-get source
  static void bringApachesClient() throws Exception {
    PythonPeer.prepare();
    Path itDir = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    Path script = itDir.resolveSibling("scripts").resolve("apache-thrift-tests.sh");
    Path logs = itDir.resolve("target/python-peer");
    Processes.Result r =
        Processes.run(
            List.of("bash", script.toString()), itDir, Map.of(), Duration.ofMinutes(5), logs);
    if (!r.succeeded()) {
      unavailable = "scripts/apache-thrift-tests.sh failed: " + r.describe();
      return;
    }
    testPy = Path.of(r.stdout().strip()).resolve("test/py");
    if (!Files.isRegularFile(testPy.resolve("TestClient.py"))) {
      unavailable = "no TestClient.py in " + testPy;
    }
  }

  @AfterAll
  static void closeServers() {
    synchronized (SERVERS) {
      SERVERS.values().forEach(ThriftServer::close);
      SERVERS.clear();
    }
  }

  static Stream<Arguments> serversAndTransports() {
    return Stream.concat(Rows.NETTY_SERVERS.stream(), Rows.GRIZZLY_SERVERS.stream())
        .flatMap(row -> Stream.of(Arguments.of("buffered", row), Arguments.of("framed", row)));
  }

  private static ThriftServer server(Rows.Server row) throws Exception {
    synchronized (SERVERS) {
      ThriftServer server = SERVERS.get(row);
      if (server == null) {
        server =
            row.builder()
                .get()
                .processor(new ThriftTest.Processor<>(new ThriftTestHandler()))
                .protocol(new TBinaryProtocol.Factory())
                .ioStrategy(row.strategy())
                .wireKinds(WireKind.FRAMED, WireKind.HEADER)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .start();
        SERVERS.put(row, server);
      }
      return server;
    }
  }

  private static Processes.Result runTestClient(int port, String transport)
      throws IOException, InterruptedException {
    PythonPeer python = PythonPeer.get();
    if (unavailable != null) {
      PythonPeer.skipOrFail(
          "Apache's TestClient.py unavailable: " + unavailable, PythonPeer.pythonRequired());
    }
    Path itDir = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    return Processes.run(
        List.of(
            python.interpreter().toString(),
            testPy.resolve("TestClient.py").toString(),
            "--host",
            "127.0.0.1",
            "--port",
            Integer.toString(port),
            "--protocol",
            "header",
            "--transport",
            transport),
        testPy,
        Map.of(
            "PYTHONPATH",
            itDir.resolve("src/test/gen-py").toString(),
            // Importing the generated code must leave no __pycache__ in the source tree.
            "PYTHONDONTWRITEBYTECODE",
            "1"),
        PythonPeer.CLIENT_TIMEOUT,
        itDir.resolve("target/python-peer"));
  }

  @ParameterizedTest(name = "TestClient.py --protocol header --transport {0} -> {1}")
  @MethodSource("serversAndTransports")
  void apachesCrossTestClientPassesOverTHeader(String transport, Rows.Server row) throws Exception {
    ThriftServer server = server(row);
    Processes.Result run = runTestClient(server.localAddress().getPort(), transport);
    assertThat(run.succeeded()).as("TestClient.py failed:%n%s", run.describe()).isTrue();
    Matcher ran = RAN.matcher(run.stderr());
    assertThat(ran.find()).as("%s", run.describe()).isTrue();
    assertThat(Integer.parseInt(ran.group(1))).as("%s", run.describe()).isEqualTo(TESTS);
    assertThat(run.stderr()).as("%s", run.describe()).contains("\nOK");
    assertThat(server.stats().badFrames()).isZero();
  }
}
