package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Netty-specific server behaviour on real sockets; the shared behaviour is the conformance suite.
 */
@Timeout(30)
class NettyThriftServerTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private static NettyThriftServer.Builder builder(BenchService.Iface handler) {
    return NettyThriftServer.builder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(PROTOCOL)
        .ioThreads(1)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private <T extends ThriftServer> T started(T server) throws Exception {
    closeables.add(server);
    server.start();
    return server;
  }

  private BenchService.Client stockClient(ThriftServer server) throws Exception {
    InetSocketAddress a = server.localAddress();
    TTransport t = new TFramedTransport(new TSocket(a.getHostString(), a.getPort(), 10_000));
    t.open();
    closeables.add(t::close);
    return new BenchService.Client(PROTOCOL.getProtocol(t));
  }

  @Test
  void rejectsLeaderFollowerNamingTheAlternatives() {
    ServerBuilder<?> b = builder(new BenchHandler()).ioStrategy(IoStrategy.LEADER_FOLLOWER);
    assertThatThrownBy(b::build)
        .isInstanceOf(SettingException.class)
        .hasMessageContaining("LEADER_FOLLOWER")
        .hasMessageContaining("SAME_THREAD or WORKER")
        .hasMessageContaining("GrizzlyThriftServer");
  }

  @Test
  @Tag("without-natives") // also run where the native libraries are absent
  void autoPicksEpollWhenUsableElseNioAndNeverIoUring() throws Exception {
    ThriftServer server = builder(new BenchHandler()).build();
    NettyTransportType expected =
        IoTransport.epollUnavailability() == null
            ? NettyTransportType.EPOLL
            : NettyTransportType.NIO;
    assertThat(NettyServer.of(server).ioTransport()).isEqualTo(expected);
    assertThat(
            NettyServer.of(builder(new BenchHandler()).ioTransport(NettyTransportType.NIO).build())
                .ioTransport())
        .isEqualTo(NettyTransportType.NIO);
  }

  @Test
  @Tag("without-natives") // also run where the native libraries are absent
  void anUnavailableNativeTransportFailsAtBuildSayingWhy() {
    String why = IoTransport.epollUnavailability();
    assumeThat(why).as("epoll is usable here").isNotNull();
    assertThatThrownBy(
            () -> builder(new BenchHandler()).ioTransport(NettyTransportType.EPOLL).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("EPOLL is not available")
        .hasMessageContaining(why);
  }

  @Test
  void theStartLineNamesTheIoTransportAndTheWireKindsAsGrizzlysDoes() throws Exception {
    ThriftServer server =
        started(builder(new BenchHandler()).wireKinds(WireKind.FRAMED, WireKind.HTTP).build());
    assertThat(NettyServer.of(server).startLine())
        .startsWith(
            "Thrift server listening on "
                + server.localAddress()
                + " (ioTransport="
                + NettyServer.of(server).ioTransport()
                + ", ServerConfig{bind=")
        .contains("wireKinds=[FRAMED, HTTP]");
    assertThat(server)
        .hasToString(
            "NettyThriftServer{"
                + server.localAddress()
                + ", "
                + NettyServer.of(server).ioTransport()
                + ", WORKER}");
  }

  @Test
  void onLinuxWithoutEpollTheNoticeNamesTheNativeArtifactForThisMachine() {
    String why = "io.netty:netty-transport-classes-epoll is not on the class path";
    assertThat(IoTransport.nioNotice("Linux", "amd64", why))
        .isEqualTo(
            "Netty runs on NIO: epoll is not available ("
                + why
                + "). The README's numbers were"
                + " measured on epoll; to use it, add io.netty:netty-transport-native-epoll with"
                + " classifier linux-x86_64 (the version of your Netty) to the class path");
    assertThat(IoTransport.nioNotice("Linux", "aarch64", why)).contains("linux-aarch_64");
    assertThat(IoTransport.nioNotice("Mac OS X", "aarch64", why)).isNull();
    assertThat(IoTransport.nioNotice("Windows 11", "amd64", why)).isNull();
  }

  @Test
  void servesOnNamedThreads() throws Exception {
    AtomicReference<String> thread = new AtomicReference<>();
    BenchHandler recording =
        new BenchHandler() {
          @Override
          public long fired() {
            thread.set(Thread.currentThread().getName());
            return super.fired();
          }
        };
    ThriftServer same = started(builder(recording).ioStrategy(IoStrategy.SAME_THREAD).build());
    stockClient(same).fired();
    assertThat(thread.get()).startsWith("thrift-nio-netty-io-");
    ThriftServer worker = started(builder(recording).ioStrategy(IoStrategy.WORKER).build());
    stockClient(worker).fired();
    assertThat(thread.get()).startsWith("thrift-nio-netty-worker-");
  }

  @Test
  void runsOnACallersEventLoopGroupAndLeavesItRunningUnlessOwned() throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      ThriftServer kept = started(builder(new BenchHandler()).eventLoopGroup(group, false).build());
      assertThat(stockClient(kept).get_last_sale("G").getSymbol()).isEqualTo("G");
      kept.close();
      assertThat(group.isShuttingDown()).isFalse();

      ThriftServer owning =
          started(builder(new BenchHandler()).eventLoopGroup(group, true).build());
      assertThat(stockClient(owning).get_last_sale("H").getSymbol()).isEqualTo("H");
      owning.close();
      assertThat(group.isShuttingDown()).isTrue();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void answersAStockClientsOversizeCallWithProtocolErrorForItsSequenceId() throws Exception {
    ThriftServer server = started(builder(new BenchHandler()).maxFrameSize(1024).build());
    BenchService.Client client = stockClient(server);
    assertThatThrownBy(() -> client.echo(Payloads.of(2048, 1)))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
              assertThat(e.getMessage()).contains("exceeds maxFrameSize 1024");
            });
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(stockClient(server).get_last_sale("next").getSymbol()).isEqualTo("next");
  }

  @Test
  void answersOverloadInOrderWhenTheWorkerQueueIsFull() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    BenchHandler blocking =
        new BenchHandler() {
          @Override
          public void sleep(int millis) {
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    ThriftServer server =
        started(
            builder(blocking)
                .ioStrategy(IoStrategy.WORKER)
                .workerThreads(1)
                .workerQueueCapacity(1)
                .build());
    try (RawConnection raw = RawConnection.open(server.localAddress())) {
      java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
      for (int seq = 1; seq <= 3; seq++) {
        batch.write(
            RawConnection.frame(
                RawConnection.encodeCall(PROTOCOL, "sleep", seq, new BenchService.sleep_args(1))));
      }
      raw.write(batch.toByteArray());
      awaitOverloaded(server);
      release.countDown();
      for (int seq = 1; seq <= 2; seq++) {
        TMessage m =
            RawConnection.decodeReply(PROTOCOL, raw.readFrame(), new BenchService.sleep_result());
        assertThat(m.seqid).isEqualTo(seq);
      }
      assertThatThrownBy(
              () ->
                  RawConnection.decodeReply(
                      PROTOCOL, raw.readFrame(), new BenchService.sleep_result()))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getMessage()).contains("server overloaded").contains("queued=1/1"));
    }
    assertThat(server.stats().overloadedCalls()).isEqualTo(1);
  }

  private static void awaitOverloaded(ThriftServer server) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.stats().overloadedCalls() == 0) {
      assertThat(System.nanoTime()).as("overload within 10 s").isLessThan(deadline);
      Thread.sleep(5); // polling a counter, not a synchronisation by time
    }
  }

  @Test
  void closeIsBoundedByTheDrainTimeoutWhenAHandlerNeverReturns() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    AtomicReference<AsyncMethodCallback<Void>> held = new AtomicReference<>();
    AsyncBenchHandler stuck =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> cb) {
            held.set(cb);
            entered.countDown(); // and calls back only after the server has closed
          }
        };
    ThriftServer server =
        started(
            NettyThriftServer.builder()
                .asyncProcessor(new BenchService.AsyncProcessor<>(stuck))
                .ioThreads(1)
                .drainTimeout(Duration.ofMillis(300))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build());
    try (RawConnection raw = RawConnection.open(server.localAddress())) {
      raw.writeFrame(
          RawConnection.encodeCall(PROTOCOL, "sleep", 1, new BenchService.sleep_args(1)));
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      long start = System.nanoTime();
      server.close();
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(tookMillis).as("close() bounded by drain timeout plus grace").isLessThan(8_000);
      raw.awaitClosedBy(Duration.ofSeconds(5));
    }
    assertThat(server.isRunning()).isFalse();
    held.get().onComplete(null); // late: the frame is released, nothing is written
    assertThat(server.stats().openConnections()).isZero();
  }

  @Test
  void closeOnItsOwnEventLoopReturnsAndDrainsWithoutBlockingThatLoop() throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    CountDownLatch entered = new CountDownLatch(1);
    AtomicReference<AsyncMethodCallback<Void>> held = new AtomicReference<>();
    try {
      AsyncBenchHandler holding =
          new AsyncBenchHandler() {
            @Override
            public void sleep(int millis, AsyncMethodCallback<Void> cb) {
              held.set(cb);
              entered.countDown();
            }
          };
      ThriftServer server =
          started(
              NettyThriftServer.builder()
                  .asyncProcessor(new BenchService.AsyncProcessor<>(holding))
                  .eventLoopGroup(group, false)
                  .drainTimeout(Duration.ofSeconds(20)) // far beyond every wait below
                  .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                  .build());
      InetSocketAddress address = server.localAddress();
      try (RawConnection busy = RawConnection.open(address);
          RawConnection idle = RawConnection.open(address)) {
        idle.writeFrame(
            RawConnection.encodeCall(
                PROTOCOL, "get_last_sale", 1, new BenchService.get_last_sale_args("I")));
        idle.readFrame(); // served: the server knows this connection
        busy.writeFrame(
            RawConnection.encodeCall(PROTOCOL, "sleep", 7, new BenchService.sleep_args(1)));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        // As from a handler or a listener: on the only event loop, which the drain needs.
        group.submit(server::close).get(10, TimeUnit.SECONDS);

        assertThat(server.isRunning()).isFalse();
        // The listening socket's fd closes at the loop's next select, so a late connection may
        // still reach the backlog; either way it is refused or closed, never served.
        try (RawConnection late = RawConnection.open(address)) {
          late.awaitClosedBy(Duration.ofSeconds(10));
        } catch (java.net.ConnectException refused) {
          // refused outright: not accepting, as expected
        }
        idle.awaitClosedBy(Duration.ofSeconds(10)); // drained long before drainTimeout
        held.getAndSet(null).onComplete(null);
        TMessage reply =
            RawConnection.decodeReply(PROTOCOL, busy.readFrame(), new BenchService.sleep_result());
        assertThat(reply.seqid).as("the call in flight is answered").isEqualTo(7);
        busy.awaitClosedBy(Duration.ofSeconds(10));
      }
      long start = System.nanoTime();
      server.close(); // another caller: waits for the close begun on the event loop
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
          .as("the drain was over, not waiting out drainTimeout")
          .isLessThan(10_000);
      assertThat(server.stats().openConnections()).isZero();
      assertThat(server.stats().completedCalls()).isEqualTo(2);
    } finally {
      AsyncMethodCallback<Void> stillHeld = held.getAndSet(null);
      if (stillHeld != null) {
        stillHeld.onComplete(null); // the test failed early: release the frame the call holds
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void countsAcceptedOpenAndCompleted() throws Exception {
    ThriftServer server = started(builder(new BenchHandler()).build());
    BenchService.Client a = stockClient(server);
    BenchService.Client b = stockClient(server);
    a.get_last_sale("a");
    b.get_last_sale("b");
    assertThat(server.stats().acceptedConnections()).isEqualTo(2);
    assertThat(server.stats().openConnections()).isEqualTo(2);
    assertThat(server.stats().completedCalls()).isEqualTo(2);
    assertThat(server.stats().failedCalls()).isZero();
  }

  @Test
  void localAddressBeforeStartSaysSo() {
    ThriftServer server = builder(new BenchHandler()).build();
    assertThatThrownBy(server::localAddress)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not started");
    server.close();
    assertThat(server.isRunning()).isFalse();
  }

  @Test
  void aTakenPortFailsStartWithTheAddress() throws Exception {
    ThriftServer first = started(builder(new BenchHandler()).build());
    ThriftServer second =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .bind(first.localAddress())
            .ioThreads(1)
            .build();
    closeables.add(second);
    assertThatThrownBy(second::start)
        .isInstanceOf(java.net.BindException.class)
        .hasMessageContaining(first.localAddress().toString());
  }

  @Test
  @Tag("without-natives") // also run where the native libraries are absent
  void ioUringIsUsedOnlyWhenAskedAndFailsClearlyWhenUnavailable() {
    assertThat(NettyServer.of(builder(new BenchHandler()).build()).ioTransport())
        .isNotEqualTo(NettyTransportType.IO_URING);
    String why = IoTransport.ioUringUnavailability();
    assumeThat(why).as("io_uring is usable here").isNotNull();
    assertThatThrownBy(
            () -> builder(new BenchHandler()).ioTransport(NettyTransportType.IO_URING).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("IO_URING is not available")
        .hasMessageContaining(why);
  }

  @Test
  void runsWorkOnACallersExecutorAndNeverShutsItDown() throws Exception {
    java.util.concurrent.ExecutorService callers =
        java.util.concurrent.Executors.newFixedThreadPool(2, r -> new Thread(r, "callers-worker"));
    try {
      AtomicReference<String> thread = new AtomicReference<>();
      BenchHandler recording =
          new BenchHandler() {
            @Override
            public long fired() {
              thread.set(Thread.currentThread().getName());
              return super.fired();
            }
          };
      ThriftServer server =
          started(builder(recording).ioStrategy(IoStrategy.WORKER).workerExecutor(callers).build());
      stockClient(server).fired();
      assertThat(thread.get()).isEqualTo("callers-worker");
      server.close();
      assertThat(callers.isShutdown()).isFalse();
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void idleTimeoutSparesAConnectionWithACallInFlight() throws Exception {
    AtomicReference<ThriftServer> serving = new AtomicReference<>();
    AtomicReference<Long> timedOutAtTheCallsEnd = new AtomicReference<>();
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public void sleep(int millis) throws BenchError {
            super.sleep(millis);
            // Read in the call, not after its reply: once answered, the connection is idle, and
            // on a loaded machine the test thread may wake after the idle timeout.
            timedOutAtTheCallsEnd.set(serving.get().stats().timedOutConnections());
          }
        };
    ThriftServer server =
        started(
            builder(handler)
                .ioStrategy(IoStrategy.WORKER)
                .idleTimeout(Duration.ofMillis(150))
                .build());
    serving.set(server);
    BenchService.Client client = stockClient(server);
    client.sleep(600); // four idle periods long: the call in flight keeps the connection
    assertThat(timedOutAtTheCallsEnd.get()).isZero();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    // The timeout is counted just before the connection closes: wait for both.
    while (server.stats().timedOutConnections() == 0 || server.stats().openConnections() != 0) {
      assertThat(System.nanoTime()).as("idle close within 10 s").isLessThan(deadline);
      Thread.sleep(5); // polling a counter
    }
    assertThat(server.stats().timedOutConnections()).isEqualTo(1);
  }
}
