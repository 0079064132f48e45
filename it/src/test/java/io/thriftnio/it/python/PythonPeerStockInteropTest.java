package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.ServerContext;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.TNonblockingServerSocket;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Python peer against stock libthrift, both ways: proves the peer itself before it is pointed
 * at this library's servers and clients.
 *
 * <ul>
 *   <li>{@code bench_client.py} (official Python Thrift) against a stock {@code
 *       TThreadedSelectorServer} serving {@link BenchHandler}, including 32 concurrent clients;
 *   <li>{@code bench_server.py} (a Python {@code TThreadedServer}) called by a stock Java {@code
 *       TSocket} + {@code TFramedTransport} client for every method.
 * </ul>
 *
 * Skipped without Python 3 unless {@code thriftnio.requirePython=true} (see {@link PythonPeer}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PythonPeerStockInteropTest {

  private static final int CONCURRENT_CLIENTS = 32;
  private static final int SOCKET_TIMEOUT_MS = 30_000;

  @BeforeAll
  @Timeout(value = 8, unit = TimeUnit.MINUTES) // the first build creates the venv and runs pip
  static void setUpPython() throws InterruptedException {
    PythonPeer.prepare();
  }

  static Stream<Arguments> protocols() {
    return Stream.of(
        Arguments.of("binary", new TBinaryProtocol.Factory()),
        Arguments.of("compact", new TCompactProtocol.Factory()));
  }

  // ---- Python client -> stock Java server ------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void pythonClientPassesEveryCheckAgainstStockThreadedSelectorServer(
      String protocol, TProtocolFactory factory) throws Exception {
    PythonPeer python = PythonPeer.get();
    BenchHandler handler = new BenchHandler();
    try (StockServer server = StockServer.start(handler, factory)) {
      ClientRun run = python.runClient("127.0.0.1", server.port(), protocol, CONCURRENT_CLIENTS);

      assertThat(run.passed()).as("bench_client.py failed:%n%s", run).isTrue();
      assertThat(run.summaryValue("ok")).as("%s", run).contains("true");
      assertThat(run.summaryValue("checks_failed")).as("%s", run).contains("0");
      assertThat(run.summaryValue("concurrent_clients"))
          .as("%s", run)
          .contains(Integer.toString(CONCURRENT_CLIENTS));
      // The oneway calls reached the Java handler, every byte of them (the client waited for
      // fired() to count them all before going on).
      assertThat(run.summaryValue("fire_calls"))
          .as("%s", run)
          .contains(Long.toString(handler.fired()));
      assertThat(run.summaryValue("fire_bytes"))
          .as("%s", run)
          .contains(Long.toString(handler.firedBytes()));
    }
  }

  // ---- stock Java client -> Python server ------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void stockJavaClientGetsBenchHandlerSemanticsFromPythonServer(
      String protocol, TProtocolFactory factory) throws Exception {
    PythonPeer python = PythonPeer.get();
    PythonServer server = python.startServer(protocol);
    try {
      try (TTransport transport = open(server.port())) {
        BenchChecks.checkEveryMethod(new BenchService.Client(factory.getProtocol(transport)));
      }
      checkConcurrentEchoes(server.port(), factory);
    } finally {
      server.close();
    }
    assertThat(server.exitCode())
        .as("exit code after SIGTERM; stderr:%n%s", server.stderr())
        .isZero();
    assertThat(server.stderr()).contains("stopped (SIGTERM)");
  }

  private static TTransport open(int port) throws Exception {
    TTransport transport =
        new TFramedTransport(
            new TSocket(new TConfiguration(), "127.0.0.1", port, SOCKET_TIMEOUT_MS));
    transport.open();
    return transport;
  }

  /** {@value #CONCURRENT_CLIENTS} clients, each on its own connection, making checked echoes. */
  private static void checkConcurrentEchoes(int port, TProtocolFactory factory) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT_CLIENTS);
    try {
      CountDownLatch connected = new CountDownLatch(CONCURRENT_CLIENTS);
      List<Callable<Integer>> clients = new ArrayList<>();
      for (int c = 0; c < CONCURRENT_CLIENTS; c++) {
        int id = c;
        clients.add(
            () -> {
              try (TTransport transport = open(port)) {
                BenchService.Client client =
                    new BenchService.Client(factory.getProtocol(transport));
                connected.countDown();
                // All connected before the first call, so the server holds them all at once.
                assertThat(connected.await(SOCKET_TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
                for (int k = 0; k < 10; k++) {
                  int size = k % 2 == 0 ? Payloads.SMALL : Payloads.MEDIUM;
                  long seed = (id + 1) * 1_000_003L + k;
                  assertThat(Payloads.check(client.echo(Payloads.of(size, seed)), size, seed))
                      .as("client %d echo %d", id, k)
                      .isTrue();
                }
                return 10;
              }
            });
      }
      int calls = 0;
      for (Future<Integer> f : pool.invokeAll(clients, 90, TimeUnit.SECONDS)) {
        calls += f.get();
      }
      assertThat(calls).isEqualTo(CONCURRENT_CLIENTS * 10);
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- the stock server ------------------------------------------------------------------------

  /** A stock libthrift {@code TThreadedSelectorServer} (framed) on 127.0.0.1, port 0. */
  private static final class StockServer implements AutoCloseable {
    private final TThreadedSelectorServer server;
    private final TNonblockingServerSocket socket;
    private final Thread thread;

    private StockServer(
        TThreadedSelectorServer server, TNonblockingServerSocket socket, Thread thread) {
      this.server = server;
      this.socket = socket;
      this.thread = thread;
    }

    static StockServer start(BenchHandler handler, TProtocolFactory factory) throws Exception {
      TNonblockingServerSocket socket =
          new TNonblockingServerSocket(new InetSocketAddress("127.0.0.1", 0));
      TThreadedSelectorServer server =
          new TThreadedSelectorServer(
              new TThreadedSelectorServer.Args(socket)
                  .selectorThreads(2)
                  .workerThreads(4)
                  .stopTimeoutVal(5)
                  .stopTimeoutUnit(TimeUnit.SECONDS)
                  .processor(new BenchService.Processor<>(handler))
                  .protocolFactory(factory));
      CountDownLatch serving = new CountDownLatch(1);
      server.setServerEventHandler(
          new TServerEventHandler() {
            @Override
            public void preServe() {
              serving.countDown();
            }

            @Override
            public ServerContext createContext(TProtocol input, TProtocol output) {
              // Not null: libthrift 0.25's nonblocking FrameBuffer calls setRemoteAddress on it.
              return new ServerContext() {
                @Override
                public <T> T unwrap(Class<T> iface) {
                  throw new UnsupportedOperationException("unwrap " + iface);
                }

                @Override
                public boolean isWrapperFor(Class<?> iface) {
                  return false;
                }
              };
            }

            @Override
            public void deleteContext(ServerContext context, TProtocol input, TProtocol output) {}

            @Override
            public void processContext(ServerContext context, TTransport in, TTransport out) {}
          });
      Thread thread = new Thread(server::serve, "stock-threaded-selector-server");
      thread.setDaemon(true);
      thread.start();
      if (!serving.await(10, TimeUnit.SECONDS)) {
        server.stop();
        throw new IllegalStateException("TThreadedSelectorServer did not start within 10 s");
      }
      return new StockServer(server, socket, thread);
    }

    int port() {
      return socket.getPort();
    }

    @Override
    public void close() {
      server.stop();
      try {
        thread.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted waiting for TThreadedSelectorServer to stop", e);
      }
      assertThat(thread.isAlive())
          .as("TThreadedSelectorServer still serving 10 s after stop()")
          .isFalse();
    }
  }
}
