package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The sync client's failure modes and limits; its happy path runs the conformance suite. */
@Timeout(30)
class TNettyTransportTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private ThriftServer server() throws Exception {
    ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioStrategy(IoStrategy.WORKER)
            .ioThreads(1)
            .bind(new InetSocketAddress(LOOPBACK, 0))
            .build();
    closeables.add(server);
    return server.start();
  }

  private Opener to(InetSocketAddress address) {
    return new Opener(address);
  }

  private TTransport open(Opener b) throws TTransportException {
    TTransport t = b.open();
    closeables.add(t::close);
    return t;
  }

  /** One transport's options, opened on this module's resources. */
  private static final class Opener {
    private final InetSocketAddress address;
    private final ClientOptions.Builder options = ClientOptions.builder();

    Opener(InetSocketAddress address) {
      this.address = address;
    }

    Opener callTimeout(Duration timeout) {
      options.callTimeout(timeout);
      return this;
    }

    Opener connectTimeout(Duration timeout) {
      options.connectTimeout(timeout);
      return this;
    }

    Opener maxFrameSize(int maxFrameSize) {
      options.maxFrameSize(maxFrameSize);
      return this;
    }

    TTransport open() throws TTransportException {
      return NettyClientKinds.RESOURCES.openTransport(address, options.build());
    }
  }

  /** A socket server that accepts and reads, and never answers. */
  private ServerSocket silentPeer() throws Exception {
    ServerSocket ss = new ServerSocket(0, 50, LOOPBACK);
    closeables.add(ss);
    Thread t =
        new Thread(
            () -> {
              try (Socket s = ss.accept();
                  InputStream in = s.getInputStream()) {
                byte[] sink = new byte[4096];
                while (in.read(sink) >= 0) {
                  // discard
                }
              } catch (Exception closed) {
                // the test closed the server socket: done
              }
            },
            "silent-peer");
    t.setDaemon(true);
    t.start();
    return ss;
  }

  private static InetSocketAddress addressOf(ServerSocket ss) {
    return new InetSocketAddress(LOOPBACK, ss.getLocalPort());
  }

  @Test
  void aReadTimeoutClosesTheTransportAndSaysWhatHappened() throws Exception {
    ServerSocket peer = silentPeer();
    TTransport transport = open(to(addressOf(peer)).callTimeout(Duration.ofMillis(200)));
    BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
    assertThatThrownBy(() -> client.get_last_sale("X"))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.getMessage())
                  .contains(addressOf(peer).toString())
                  .contains("callTimeout 200 ms")
                  .contains("transport closed");
            });
    assertThat(transport.isOpen()).isFalse();
    assertThatThrownBy(() -> client.get_last_sale("again"))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN));
  }

  @Test
  void aRefusedConnectionNamesTheAddress() throws Exception {
    InetSocketAddress nobody;
    try (ServerSocket ss = new ServerSocket(0, 1, LOOPBACK)) {
      nobody = addressOf(ss);
    }
    assertThatThrownBy(() -> to(nobody).open())
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN);
              assertThat(e.getMessage()).contains("cannot connect to " + nobody);
            });
  }

  @Test
  void aPeerThatClosesFailsTheReadWithEndOfFile() throws Exception {
    ServerSocket ss = new ServerSocket(0, 50, LOOPBACK);
    closeables.add(ss);
    Thread closer =
        new Thread(
            () -> {
              try (Socket s = ss.accept()) {
                s.getInputStream().read(); // the request has arrived: hang up
              } catch (Exception e) {
                // the test ended first
              }
            });
    closer.setDaemon(true);
    closer.start();
    TTransport transport = open(to(addressOf(ss)));
    BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
    assertThatThrownBy(() -> client.get_last_sale("X"))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.END_OF_FILE);
              assertThat(e.getMessage()).contains("closed by the peer");
            });
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void refusesToWriteMoreThanMaxFrameSize() throws Exception {
    ThriftServer server = server();
    TTransport transport = open(to(server.localAddress()).maxFrameSize(100));
    BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
    assertThatThrownBy(() -> client.echo(Payloads.of(200, 1)))
        .isInstanceOf(FrameSizeException.class)
        .hasMessageContaining("exceeds maxFrameSize 100");
  }

  @Test
  void rejectsAResponseAboveMaxFrameSize() throws Exception {
    ThriftServer server = server();
    TTransport transport = open(to(server.localAddress()).maxFrameSize(1000));
    BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
    // db_work(100) answers far more than 1000 bytes for a request far below.
    assertThatThrownBy(() -> client.db_work(100))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
              assertThat(e.getMessage()).contains("exceeds maxFrameSize 1000");
            });
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void aFrameBeforeAnyRequestIsAViolation() throws Exception {
    ServerSocket ss = new ServerSocket(0, 50, LOOPBACK);
    closeables.add(ss);
    Thread t =
        new Thread(
            () -> {
              try (Socket s = ss.accept()) {
                java.io.DataOutputStream out = new java.io.DataOutputStream(s.getOutputStream());
                out.writeInt(4);
                out.writeInt(42);
                out.flush();
                while (s.getInputStream().read() >= 0) {
                  // hold the connection until the client closes it
                }
              } catch (Exception closed) {
                // done
              }
            },
            "eager-peer");
    t.setDaemon(true);
    t.start();
    TTransport transport = open(to(addressOf(ss)));
    assertThatThrownBy(() -> transport.read(new byte[4], 0, 4))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
              assertThat(e.getMessage()).contains("with no call waiting for it");
            });
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void manyTransportsShareTwoEventLoops() throws Exception {
    ThriftServer server = server();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int c = 0; c < 16; c++) {
        TTransport transport = open(to(server.localAddress()));
        BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
        int seed = c;
        results.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20; i++) {
                    if (!Payloads.check(client.echo(Payloads.of(1000, seed + i)), 1000, seed + i)) {
                      return false;
                    }
                  }
                  return true;
                }));
      }
      for (Future<Boolean> r : results) {
        assertThat(r.get(20, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void openTwiceAndUseAfterCloseFailClearly() throws Exception {
    ThriftServer server = server();
    TTransport transport = open(to(server.localAddress()));
    assertThatThrownBy(transport::open)
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.ALREADY_OPEN));
    transport.close();
    transport.close();
    assertThatThrownBy(transport::flush)
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN);
              assertThat(e.getMessage()).contains("is closed");
            });
  }

  @Test
  void builderValidatesWithTheNumbers() {
    InetSocketAddress a = new InetSocketAddress(LOOPBACK, 1);
    assertThatThrownBy(() -> ClientOptions.builder().maxFrameSize(0).build())
        .hasMessage("maxFrameSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> ClientOptions.builder().callTimeout(Duration.ofMillis(-1)).build())
        .hasMessageContaining("callTimeout: PT-0.001S (expected: > 0");
    assertThatThrownBy(() -> NettyClientKinds.RESOURCES.openTransport(a, null))
        .hasMessageContaining("options");
  }

  @Test
  void aConnectTimeoutFailsWithTimedOut() throws Exception {
    // A listening socket that never accepts: once its backlog is full, the kernel drops further
    // handshakes, so a connect neither succeeds nor is refused.
    ServerSocket full = new ServerSocket(0, 1, LOOPBACK);
    closeables.add(full);
    List<Socket> fillers = new ArrayList<>();
    boolean backlogFull = false;
    for (int i = 0; i < 16 && !backlogFull; i++) {
      Socket s = new Socket();
      fillers.add(s);
      try {
        s.connect(addressOf(full), 200);
      } catch (java.net.SocketTimeoutException dropped) {
        backlogFull = true;
      }
    }
    for (Socket s : fillers) {
      closeables.add(s);
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(backlogFull, "this kernel queues every SYN");
    assertThatThrownBy(() -> to(addressOf(full)).connectTimeout(Duration.ofMillis(200)).open())
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.getMessage()).contains("cannot connect to " + addressOf(full));
            });
  }
}
