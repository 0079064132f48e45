package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a server does where thrift-nio's two transports once disagreed, now decided once in core's
 * server call path. Each transport runs it once per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class CallPathSuite {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final Duration WITHIN = Duration.ofSeconds(10);

  private final List<ThriftServer> servers = new ArrayList<>();

  /** A fresh builder of the server under test. */
  protected abstract ServerBuilder<?> newServerBuilder();

  /** The strategy under test. */
  protected abstract IoStrategy strategy();

  @AfterEach
  void closeServers() {
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  private ThriftServer start(BenchService.Iface handler) throws IOException {
    ThriftServer server = builder(handler).build();
    servers.add(server);
    return server.start();
  }

  private ServerBuilder<?> builder(BenchService.Iface handler) {
    return newServerBuilder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(PROTOCOL)
        .ioStrategy(strategy())
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private static byte[] call(String method, int seqid, org.apache.thrift.TBase<?, ?> args)
      throws Exception {
    return RawConnection.frame(RawConnection.encodeCall(PROTOCOL, method, seqid, args));
  }

  // ---- failedCalls ----------------------------------------------------------------------------

  @Test
  void failedCallsCountEveryCallThatEndsInATApplicationException() throws Exception {
    ThriftServer server = start(new FaultInjectingHandler());
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      c.write(
          call(
              "fail",
              1,
              new BenchService.fail_args(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x")));
      assertThatThrownBy(
              () ->
                  RawConnection.decodeReply(
                      PROTOCOL, c.readFrame(), new BenchService.fail_result()))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
      c.write(call("fail", 2, new BenchService.fail_args(7, "declared")));
      BenchService.fail_result declared = new BenchService.fail_result();
      RawConnection.decodeReply(PROTOCOL, c.readFrame(), declared);
      assertThat((Object) declared.error).isInstanceOf(BenchError.class);
      c.write(call("no_such_method", 3, new BenchService.sleep_args(0)));
      assertThatThrownBy(
              () ->
                  RawConnection.decodeReply(
                      PROTOCOL, c.readFrame(), new BenchService.sleep_result()))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD));
      c.write(call("get_last_sale", 4, new BenchService.get_last_sale_args("OK")));
      RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.get_last_sale_result());
    }
    ServerStats stats = server.stats();
    assertThat(stats.completedCalls()).as("%s", stats).isEqualTo(4);
    assertThat(stats.failedCalls())
        .as("the undeclared exception and the unknown method; a declared one is a reply: %s", stats)
        .isEqualTo(2);
  }

  // ---- WORKER on one pipelining connection -----------------------------------------------------

  /** sleep(1) waits until sleep(2) has started; sleep(2) returns at once. */
  private static final class Rendezvous extends FaultInjectingHandler {
    final CountDownLatch secondStarted = new CountDownLatch(1);
    volatile boolean firstSawSecond;

    @Override
    public void sleep(int millis) {
      if (millis == 2) {
        secondStarted.countDown();
        return;
      }
      try {
        firstSawSecond = secondStarted.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void workerRunsOneConnectionsPipelinedCallsInParallelAndAnswersInOrder() throws Exception {
    assumeTrue(strategy() == IoStrategy.WORKER, "WORKER only: other strategies run calls inline");
    Rendezvous handler = new Rendezvous();
    ThriftServer server = start(handler);
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      ByteArrayOutputStream both = new ByteArrayOutputStream();
      both.writeBytes(call("sleep", 1, new BenchService.sleep_args(1)));
      both.writeBytes(call("sleep", 2, new BenchService.sleep_args(2)));
      c.write(both.toByteArray());
      assertThat(
              RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result())
                  .seqid)
          .isEqualTo(1);
      assertThat(
              RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result())
                  .seqid)
          .isEqualTo(2);
    }
    assertThat(handler.firstSawSecond).as("the second call started while the first ran").isTrue();
  }

  // ---- drain ------------------------------------------------------------------------------------

  /** sleep(1) blocks until released; records that it started. */
  private static final class Held extends FaultInjectingHandler {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void sleep(int millis) {
      started.countDown();
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void closeAnswersTheRequestsAConnectionHasAlreadySentThenClosesIt() throws Exception {
    Held handler = new Held();
    ThriftServer server = start(handler);
    ExecutorService closer = Executors.newSingleThreadExecutor();
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      ByteArrayOutputStream both = new ByteArrayOutputStream();
      both.writeBytes(call("sleep", 1, new BenchService.sleep_args(1)));
      both.writeBytes(call("get_last_sale", 2, new BenchService.get_last_sale_args("D")));
      c.write(both.toByteArray());
      assertThat(handler.started.await(10, TimeUnit.SECONDS)).isTrue();
      Future<?> closed = closer.submit(server::close);
      long deadline = System.nanoTime() + WITHIN.toNanos();
      while (server.isRunning()) {
        assertThat(System.nanoTime()).as("close began").isLessThan(deadline);
        Thread.sleep(5); // polling a state
      }
      handler.release.countDown();
      assertThat(
              RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result())
                  .seqid)
          .isEqualTo(1);
      BenchService.get_last_sale_result second = new BenchService.get_last_sale_result();
      assertThat(RawConnection.decodeReply(PROTOCOL, c.readFrame(), second).seqid).isEqualTo(2);
      assertThat(second.success.getSymbol()).isEqualTo("D");
      assertThat(c.awaitClosedBy(WITHIN)).as("then the connection closes").isEmpty();
      closed.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      handler.release.countDown();
      closer.shutdownNow();
    }
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /** fail(55) closes the server it runs in and records how long close() took. */
  private static final class ClosesItsServer extends FaultInjectingHandler {
    volatile ThriftServer server;
    volatile long closeNanos = -1;

    @Override
    public void fail(int code, String message) throws BenchError {
      if (code != 55) {
        super.fail(code, message);
        return;
      }
      long start = System.nanoTime();
      server.close();
      closeNanos = System.nanoTime() - start;
    }
  }

  @Test
  void closeCalledInAHandlerReturnsAtOnceAndTheServerStillCloses() throws Exception {
    ClosesItsServer handler = new ClosesItsServer();
    ThriftServer server = builder(handler).drainTimeout(Duration.ofSeconds(30)).build();
    servers.add(server);
    handler.server = server.start();
    try (RawConnection other = RawConnection.open(server.localAddress());
        RawConnection c = RawConnection.open(server.localAddress())) {
      other.write(call("get_last_sale", 1, new BenchService.get_last_sale_args("O")));
      other.readFrame();
      c.write(call("fail", 2, new BenchService.fail_args(55, "close")));
      RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.fail_result());
      assertThat(handler.closeNanos)
          .as("close() in a handler must not wait for the drain, which waits for that call")
          .isBetween(0L, TimeUnit.SECONDS.toNanos(5));
      assertThat(c.awaitClosedBy(WITHIN)).isEmpty();
      assertThat(other.awaitClosedBy(WITHIN)).as("an idle connection closes too").isEmpty();
    }
    assertThat(server.isRunning()).isFalse();
    long start = System.nanoTime();
    server.close(); // waits for the close the handler began
    assertThat(System.nanoTime() - start)
        .as("the close begun in the handler finishes once its connections are closed")
        .isLessThan(TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void aPortInUseFailsStartWithABindExceptionNamingTheAddress() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address =
          new InetSocketAddress(InetAddress.getLoopbackAddress(), taken.getLocalPort());
      ThriftServer server = builder(new FaultInjectingHandler()).bind(address).build();
      servers.add(server);
      assertThatThrownBy(server::start)
          .isInstanceOf(BindException.class)
          .hasMessageContaining("cannot bind")
          .hasMessageContaining(Integer.toString(taken.getLocalPort()));
      assertThat(server.isRunning()).isFalse();
    }
  }

  @Test
  void aRunningServerKeepsTheJvmAliveAndAClosedOneDoesNot() throws Exception {
    Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
    ThriftServer server = start(new FaultInjectingHandler());
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      c.write(call("get_last_sale", 1, new BenchService.get_last_sale_args("T")));
      c.readFrame();
    }
    List<Thread> serving = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (!before.contains(t) && t.isAlive() && !t.isDaemon()) {
        serving.add(t);
      }
    }
    assertThat(serving).as("non-daemon threads of the running server").isNotEmpty();
    server.close();
    for (Thread t : serving) {
      t.join(WITHIN.toMillis());
      assertThat(t.isAlive()).as("%s after close()", t.getName()).isFalse();
    }
  }
}
