package io.thriftnio.it.python;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The official Python Thrift library as an interop peer: runs {@code
 * src/test/python/bench_client.py} against a server, and starts {@code bench_server.py} for Java
 * clients to call.
 *
 * <p>The first use finds a Python 3 interpreter ({@code thriftnio.python} system property or {@code
 * THRIFTNIO_PYTHON}, else {@code python3} or {@code python} on PATH) and keeps a virtual
 * environment in {@code target/python-venv} with the pins of {@code requirements.txt}; later builds
 * reuse it while the pinned versions are installed.
 *
 * <p>Where no usable Python 3 is there, {@link #get()} aborts the calling test (JUnit reports it
 * skipped, with the reason) unless the system property {@code thriftnio.requirePython=true} or the
 * environment variable {@code THRIFTNIO_REQUIRE_PYTHON=1} is set: then it fails the test. CI sets
 * one of them, since CI machines have Python.
 *
 * <p>Setting up may take minutes (pip builds the package's C extension): call {@link #prepare()}
 * from a {@code @BeforeAll} with a generous {@code @Timeout}, then {@link #get()} in each test.
 */
public final class PythonPeer {

  /** Bound on one {@code bench_client.py} run. */
  public static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(100);

  private static final Object LOCK = new Object();
  private static PythonPeer peer;
  private static String unavailable;

  private final Path python;
  private final Path scripts;
  private final Path logs;

  private PythonPeer(Path python, Path scripts, Path logs) {
    this.python = python;
    this.scripts = scripts;
    this.logs = logs;
  }

  /**
   * Sets up the peer once per JVM if not done yet; never aborts nor fails for a missing Python
   * (that is {@link #get()}'s job). Safe to call from several tests.
   */
  public static void prepare() throws InterruptedException {
    synchronized (LOCK) {
      if (peer != null || unavailable != null) {
        return;
      }
      Path itDir = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
      Path scripts = itDir.resolve("src/test/python");
      if (!Files.isRegularFile(scripts.resolve("bench_client.py"))) {
        // A broken checkout, not a machine without Python: never a skip.
        throw new IllegalStateException("no bench_client.py in " + scripts);
      }
      Path logs = itDir.resolve("target/python-peer");
      try {
        Files.createDirectories(logs);
        String interpreter =
            PythonEnvironment.findInterpreter(
                firstNonBlank(
                    System.getProperty("thriftnio.python"), System.getenv("THRIFTNIO_PYTHON")),
                System.getenv("PATH"),
                logs);
        PythonEnvironment venv = new PythonEnvironment(itDir.resolve("target/python-venv"), logs);
        venv.ensure(interpreter, scripts.resolve("requirements.txt"));
        peer = new PythonPeer(venv.python(), scripts, logs);
      } catch (PythonEnvironment.UnavailableException e) {
        unavailable = e.getMessage();
      } catch (IOException e) {
        throw new UncheckedIOException("setting up the Python peer in " + itDir, e);
      }
    }
  }

  /**
   * The peer, set up if needed. Without a usable Python 3 this aborts the calling test, or fails it
   * when Python is required (see the class comment).
   */
  public static PythonPeer get() throws InterruptedException {
    prepare();
    synchronized (LOCK) {
      if (peer == null) {
        skipOrFail("Python interop peer unavailable: " + unavailable, pythonRequired());
      }
      return peer;
    }
  }

  /** The venv's Python interpreter, for scripts other than the peer's own. */
  Path interpreter() {
    return python;
  }

  /** Aborts the calling test with {@code reason}, or fails it when {@code required}. */
  static void skipOrFail(String reason, boolean required) {
    if (required) {
      Assertions.fail(
          reason + " (required by thriftnio.requirePython=true or THRIFTNIO_REQUIRE_PYTHON=1)");
    }
    Assumptions.abort(
        reason + " (set thriftnio.requirePython=true or THRIFTNIO_REQUIRE_PYTHON=1 to fail)");
  }

  /** Whether a missing Python fails tests instead of skipping them. */
  static boolean pythonRequired() {
    String env = System.getenv("THRIFTNIO_REQUIRE_PYTHON");
    return Boolean.getBoolean("thriftnio.requirePython")
        || "1".equals(env)
        || "true".equalsIgnoreCase(env);
  }

  /**
   * Runs {@code bench_client.py}: every {@code BenchService} method against {@code host:port},
   * checked against {@code BenchHandler}'s semantics, then {@code clients} concurrent clients (0
   * for none) making echo round trips. Bounded by {@link #CLIENT_TIMEOUT}; killed after it.
   *
   * @param protocol {@code binary} or {@code compact}
   */
  public ClientRun runClient(String host, int port, String protocol, int clients)
      throws IOException, InterruptedException {
    return runClient(host, port, protocol, "framed", clients);
  }

  /**
   * Runs {@code bench_client.py} with {@code transport}: {@code framed}, {@code buffered} (Python's
   * default unframed {@code TBufferedTransport}) or {@code http} ({@code THttpClient}).
   *
   * @param more further arguments, e.g. {@code --http-path /thrift}
   */
  public ClientRun runClient(
      String host, int port, String protocol, String transport, int clients, String... more)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    Collections.addAll(
        command,
        python.toString(),
        scripts.resolve("bench_client.py").toString(),
        "--host",
        host,
        "--port",
        Integer.toString(port),
        "--protocol",
        protocol,
        "--transport",
        transport,
        "--clients",
        Integer.toString(clients));
    Collections.addAll(command, more);
    return new ClientRun(Processes.run(command, scripts, Map.of(), CLIENT_TIMEOUT, logs));
  }

  /**
   * Runs {@code header_client.py}: Python's {@code THeaderTransport} calling {@code echo} on {@code
   * host:port} (binary and compact, zlib off and on, both switched call by call on one connection,
   * an info header read by the handler). Its summary line holds {@code passed} and {@code failed}.
   * Bounded by {@link #CLIENT_TIMEOUT}.
   *
   * @param more further arguments, e.g. {@code --calls 5} or {@code --expect-response-header}
   */
  public ClientRun runHeaderClient(String host, int port, String... more)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    Collections.addAll(
        command,
        python.toString(),
        scripts.resolve("header_client.py").toString(),
        "--host",
        host,
        "--port",
        Integer.toString(port));
    Collections.addAll(command, more);
    return new ClientRun(Processes.run(command, scripts, Map.of(), CLIENT_TIMEOUT, logs));
  }

  /**
   * Runs {@code sasl_client.py}: Python's {@code TSaslClientTransport} with pure-sasl's PLAIN
   * calling {@code echo} on {@code host:port} as {@code user}. Its summary line holds {@code
   * passed} and {@code failed}. Bounded by {@link #CLIENT_TIMEOUT}.
   *
   * @param more further arguments, e.g. {@code --calls 5} or {@code --wrong-password}
   */
  public ClientRun runSaslClient(
      String host, int port, String user, String password, String... more)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    Collections.addAll(
        command,
        python.toString(),
        scripts.resolve("sasl_client.py").toString(),
        "--host",
        host,
        "--port",
        Integer.toString(port),
        "--user",
        user,
        "--password",
        password);
    Collections.addAll(command, more);
    return new ClientRun(Processes.run(command, scripts, Map.of(), CLIENT_TIMEOUT, logs));
  }

  /**
   * Starts {@code bench_server.py} on 127.0.0.1, port 0, and returns once it is listening.
   *
   * @param protocol {@code binary} or {@code compact}
   */
  public PythonServer startServer(String protocol) throws IOException, InterruptedException {
    return startServer(protocol, "framed");
  }

  /**
   * Starts {@code bench_server.py} with {@code transport}: {@code framed}, or {@code header}
   * (Python's {@code THeaderProtocolFactory}: THeader peers only, answered in the inner protocol
   * they use, {@code protocol} being the default; {@code echo} answers the info header {@code
   * x-echo} with its value and the response info header {@code x-echoed}).
   */
  public PythonServer startServer(String protocol, String transport)
      throws IOException, InterruptedException {
    return PythonServer.start(
        List.of(
            python.toString(),
            scripts.resolve("bench_server.py").toString(),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--protocol",
            protocol,
            "--transport",
            transport,
            "--exit-on-stdin-eof"),
        scripts,
        logs);
  }

  private static String firstNonBlank(String a, String b) {
    return a != null && !a.isBlank() ? a : b;
  }
}
