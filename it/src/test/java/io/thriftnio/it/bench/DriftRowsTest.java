package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Drift peer: the {@code drift} row serves the stock and the library's clients, Drift's own
 * client calls our rows, and where Drift cannot run the cells say why. The runs need the peer's jar
 * and a JDK &gt;= 21 (this machine's CI sets {@code THRIFTNIO_REQUIRE_DRIFT=1}: they must not skip
 * there).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DriftRowsTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  /** Skips where Drift cannot run, unless the environment requires it to. */
  private static void assumeDriftRuns() {
    String why =
        !DriftPeerJar.built()
            ? DriftPeerJar.NOT_BUILT
            : PeerJdk.java(DriftPeerJar.JAVA).isEmpty()
                ? PeerJdk.missing(DriftPeerJar.JAVA, "drift")
                : null;
    if (why != null && "1".equals(System.getenv("THRIFTNIO_REQUIRE_DRIFT"))) {
      fail("THRIFTNIO_REQUIRE_DRIFT=1, but " + why);
    }
    assumeTrue(why == null, why);
  }

  private static List<String> tiny(String servers, String scenarios, Path out) {
    return new ArrayList<>(
        List.of(
            "efficiency",
            "--servers",
            servers,
            "--scenarios",
            scenarios,
            "--rounds",
            "1",
            // Drift connects and compiles its codecs on a client's first call: a warm-up of a
            // few calls keeps that out of the one-second window.
            "--warmup",
            "500ms",
            "--warmup-calls",
            "200",
            "--duration",
            "1s",
            "--no-pin",
            "--out",
            out.toString()));
  }

  /** The rows of {@code results.csv}, each as column name to value. */
  private static List<Map<String, String>> csv(Path out) throws Exception {
    List<String> lines = Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8);
    String[] header = lines.get(0).split(",");
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",", -1);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.length; i++) {
        row.put(header[i], f[i]);
      }
      rows.add(row);
    }
    return rows;
  }

  private static void assertIntactCalls(Map<String, String> row) {
    assertThat(Double.parseDouble(row.get("calls_per_sec"))).as(row.toString()).isPositive();
    assertThat(Double.parseDouble(row.get("server_us_per_call"))).as(row.toString()).isPositive();
    // errors counts failed calls and replies whose payload was not the one sent.
    assertThat(row.get("errors")).as(row.toString()).isEqualTo("0");
  }

  @Test
  void driftServesTsocket40AndAsync8x32WithEveryPayloadIntact() throws Exception {
    assumeDriftRuns();
    int status = run(tiny(DriftRows.NAME, "tsocket-40,async-8x32", dir).toArray(new String[0]));

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString()).doesNotContain("skipped");
    List<Map<String, String>> rows = csv(dir);
    assertThat(rows)
        .extracting(r -> r.get("server") + " " + r.get("scenario") + " " + r.get("client"))
        .containsExactly("drift tsocket-40 tsocket", "drift async-8x32 netty-async");
    rows.forEach(DriftRowsTest::assertIntactCalls);
  }

  @Test
  void driftsClientCallsOurNettyRowFromALoadGeneratorOnAJdk21() throws Exception {
    assumeDriftRuns();
    // The load generator must run on a JDK >= 21 for Drift's client: this test's JVM may be 17,
    // so it runs the command in a child JVM of the JDK the bench finds, as efficiency does when
    // it pins.
    List<String> command = new ArrayList<>();
    command.add(PeerJdk.java(DriftPeerJar.JAVA).orElseThrow());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(BenchMain.class.getName());
    command.addAll(tiny("netty/same-thread", EfficiencyScenario.DRIFT_40, dir));
    Path log = dir.resolve("child.log");
    Process child =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertThat(child.waitFor(100, TimeUnit.SECONDS)).as("the child ends").isTrue();
    } finally {
      child.destroyForcibly();
    }
    String output = Files.readString(log);
    assertThat(child.exitValue()).as(output).isZero();
    assertThat(output)
        .contains("netty/same-thread drift-40 (drift x40): ")
        .doesNotContain("skipped");
    List<Map<String, String>> rows = csv(dir);
    assertThat(rows)
        .extracting(r -> r.get("server") + " " + r.get("scenario") + " " + r.get("client"))
        .containsExactly("netty/same-thread drift-40 drift");
    assertThat(rows.get(0).get("connections")).isEqualTo("40");
    assertIntactCalls(rows.get(0));
  }

  @Test
  void withoutAJdk21TheDriftRowIsSkippedWithTheReason() throws Exception {
    Path nowhere = dir.resolve("no-jdks-here");
    System.setProperty(PeerJdk.DIR_PROPERTY, nowhere.toString());
    int status;
    try {
      status = run(tiny(DriftRows.NAME, "seq-1", dir).toArray(new String[0]));
    } finally {
      System.clearProperty(PeerJdk.DIR_PROPERTY);
    }

    assertThat(status).as(err.toString()).isZero();
    String reason =
        DriftPeerJar.built()
            ? "cannot start drift: IOException: drift needs a JDK >= 21 (its classes are compiled"
                + " for Java 21); none in "
                + nowhere
                + " (-Dthriftnio.bench.jdks): install one there, or point"
                + " -Dthriftnio.bench.jdks=DIR at a folder of JDKs"
            : DriftPeerJar.NOT_BUILT;
    assertThat(err.toString()).contains("drift seq-1 (tsocket x1): skipped: " + reason);
    assertThat(out.toString()).contains("Skipped:\n- drift seq-1 (tsocket x1): " + reason);
  }

  @Test
  void onALoadGeneratorOlderThan21TheDriftClientKindSaysWhereToRunIt() throws Exception {
    assumeTrue(Runtime.version().feature() < DriftPeerJar.JAVA, "this JVM runs Drift's client");
    assumeDriftRuns();
    int status = run(tiny("raw-echo", EfficiencyScenario.DRIFT_40, dir).toArray(new String[0]));

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains(
            "raw-echo drift-40 (drift x40): skipped: the drift client kind runs in the load"
                + " generator, and Drift 1.22's classes need Java 21 and this JVM is "
                + Runtime.version().feature())
        .contains(
            "; efficiency runs its load generator on "
                + PeerJdk.java(DriftPeerJar.JAVA).orElseThrow()
                + " when it pins it (taskset), else run the bench with that java");
  }

  @Test
  void aPinnedLoadGeneratorOfTheDriftClientRunsOnAJdk21() {
    List<EfficiencyScenario> stock = EfficiencyScenario.resolve(List.of("tsocket-40"));
    List<EfficiencyScenario> drift =
        EfficiencyScenario.resolve(List.of("tsocket-40", EfficiencyScenario.DRIFT_40));

    assertThat(DriftRows.loadGeneratorJava(stock)).isEqualTo(ServeProcess.javaCommand());
    String expected =
        Runtime.version().feature() >= DriftPeerJar.JAVA
            ? ServeProcess.javaCommand()
            : PeerJdk.java(DriftPeerJar.JAVA).orElse(ServeProcess.javaCommand());
    assertThat(DriftRows.loadGeneratorJava(drift)).isEqualTo(expected);
  }

  @Test
  void driftIsAPeerNamedOnlyAndDrift40IsNotInAll() {
    Rows rows = Rows.standard();
    assertThat(rows.expandServers(List.of("peers"))).contains(DriftRows.NAME);
    assertThat(rows.expandServers(List.of("all"))).doesNotContain(DriftRows.NAME);
    assertThat(rows.expandServers(List.of(DriftRows.NAME))).containsExactly(DriftRows.NAME);
    assertThat(rows.expandClients(List.of("all"))).doesNotContain(DriftRows.NAME);
    assertThat(EfficiencyScenario.resolve(List.of("all")))
        .extracting(EfficiencyScenario::name)
        .doesNotContain(EfficiencyScenario.DRIFT_40);
    assertThat(EfficiencyScenario.resolve(List.of(EfficiencyScenario.DRIFT_40)))
        .containsExactly(new EfficiencyScenario("drift-40", "drift", 40, 1, null));
  }

  @Test
  void peerJdkReadsTheReleaseFileAndPicksTheNewestJdkOfTheFolder() throws Exception {
    Path jdks = dir.resolve("jdks");
    fakeJdk(jdks.resolve("jdk-8"), "1.8.0_392");
    fakeJdk(jdks.resolve("jdk-21"), "21.0.2");
    fakeJdk(jdks.resolve("jdk-23"), "23");
    Files.createDirectories(jdks.resolve("not-a-jdk"));

    assertThat(PeerJdk.feature(jdks.resolve("jdk-8"))).isEqualTo(8);
    assertThat(PeerJdk.feature(jdks.resolve("jdk-21"))).isEqualTo(21);
    assertThat(PeerJdk.feature(jdks.resolve("not-a-jdk"))).isZero();
    System.setProperty(PeerJdk.DIR_PROPERTY, jdks.toString());
    try {
      assertThat(PeerJdk.java(21)).contains(jdks.resolve("jdk-23/bin/java").toString());
      assertThat(PeerJdk.java(24)).isEmpty();
    } finally {
      System.clearProperty(PeerJdk.DIR_PROPERTY);
    }
  }

  private static void fakeJdk(Path home, String version) throws Exception {
    Files.createDirectories(home.resolve("bin"));
    Path java = Files.createFile(home.resolve("bin/java"));
    assertThat(java.toFile().setExecutable(true)).isTrue();
    Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
  }
}
