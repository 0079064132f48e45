package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.NotRun;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a server does where thrift-nio's two transports once disagreed, now decided once in core's
 * server call path, and the call path's own bounds ({@code handlerTimeout}). Each transport runs it
 * once per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.STRATEGIES)
public abstract class CallPathSuite extends ServerCellSuite {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final Duration WITHIN = Duration.ofSeconds(10);

  private final List<ThriftServer> servers = new ArrayList<>();

  @AfterEach
  void closeServers() {
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  private ThriftServer start(BenchService.Iface handler) throws IOException {
    return start(builder(handler));
  }

  private ThriftServer start(ServerBuilder<?> builder) throws IOException {
    ThriftServer server = builder.build();
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

  private ServerBuilder<?> asyncBuilder(BenchService.AsyncIface handler) {
    return newServerBuilder()
        .asyncProcessor(new BenchService.AsyncProcessor<>(handler))
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

  // ---- LEADER_FOLLOWER: a fast reply ahead of a slow call on the reading thread -----------------

  @Test
  void onLeaderFollowerAFastReplyLeavesWhileASlowCallReadAfterItStillRuns() throws Exception {
    assumeTrue(
        strategy() == IoStrategy.LEADER_FOLLOWER,
        "LEADER_FOLLOWER only: its calls run on the reading thread, and may block it");
    Held handler = new Held();
    ThriftServer server = start(handler);
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      ByteArrayOutputStream both = new ByteArrayOutputStream();
      both.writeBytes(call("get_last_sale", 1, new BenchService.get_last_sale_args("D")));
      both.writeBytes(call("sleep", 2, new BenchService.sleep_args(1)));
      c.write(both.toByteArray()); // one read on the server: the replies of a batch leave together
      assertThat(handler.started.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      BenchService.get_last_sale_result fast = new BenchService.get_last_sale_result();
      assertThat(RawConnection.decodeReply(PROTOCOL, c.readFrame(), fast).seqid).isEqualTo(1);
      assertThat(handler.returned.getCount())
          .as("the fast reply arrived while the slow call read after it still ran")
          .isEqualTo(1);
      handler.release.countDown();
      assertThat(
              RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result())
                  .seqid)
          .isEqualTo(2);
    } finally {
      handler.release.countDown();
    }
  }

  // ---- drain ------------------------------------------------------------------------------------

  /** sleep and fire (oneway) block until released; records that they started and returned. */
  private static final class Held extends FaultInjectingHandler {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch returned = new CountDownLatch(1);

    @Override
    public void sleep(int millis) {
      started.countDown();
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        returned.countDown();
      }
    }

    @Override
    public void fire(ByteBuffer payload) {
      sleep(0);
    }
  }

  @Test
  void closeAnswersEveryRequestAConnectionHasAlreadySentThenClosesIt() throws Exception {
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
      // The second was read once the drain had begun: run and answered, or answered "not run"
      // (the drain's rule), never lost.
      BenchService.get_last_sale_result second = new BenchService.get_last_sale_result();
      try {
        assertThat(RawConnection.decodeReply(PROTOCOL, c.readFrame(), second).seqid).isEqualTo(2);
        assertThat(second.success.getSymbol()).isEqualTo("D");
      } catch (TApplicationException refused) {
        assertThat(NotRun.isNotRun(refused)).as(refused.getMessage()).isTrue();
        assertThat(refused.getMessage()).contains("get_last_sale seqid 2");
      }
      assertThat(c.awaitClosedBy(WITHIN)).as("then the connection closes").isEmpty();
      closed.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      handler.release.countDown();
      closer.shutdownNow();
    }
  }

  // ---- handlerTimeout
  // ------------------------------------------------------------------------------

  private static final Duration HANDLER_TIMEOUT = Duration.ofMillis(500);

  /** How late the timeout reply may be on a loaded machine: far below the next timeout (30 s). */
  private static final Duration SLACK = Duration.ofSeconds(5);

  /**
   * Whether a synchronous handler that blocks also blocks its connection's reading: it runs on the
   * thread that handles the connection's read (SAME_THREAD's IO thread, LEADER_FOLLOWER's leader of
   * the moment), so nothing pipelined behind it is delivered until it returns. On Netty's
   * SAME_THREAD the timeout reply itself waits for it too (documented on handlerTimeout).
   */
  private boolean blockedHandlerHoldsItsConnection() {
    return strategy() != IoStrategy.WORKER;
  }

  /** Records every call's end as {@code method:seqid:OUTCOME}. */
  private static final class Outcomes implements ServerInterceptor {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      seen.add(context.methodName() + ":" + context.seqId() + ":" + outcome);
    }
  }

  /** sleep never calls back until the test does; every other method answers at once. */
  private static final class NeverCallsBack extends AsyncBenchHandler {
    final CompletableFuture<AsyncMethodCallback<Void>> held = new CompletableFuture<>();

    @Override
    public void sleep(int millis, AsyncMethodCallback<Void> callback) {
      held.complete(callback);
    }
  }

  private static byte[] sleepCall(int seqid) throws Exception {
    return call("sleep", seqid, new BenchService.sleep_args(1));
  }

  private static byte[] lastSaleCall(int seqid) throws Exception {
    return call("get_last_sale", seqid, new BenchService.get_last_sale_args("S" + seqid));
  }

  private static byte[] concat(byte[]... frames) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] f : frames) {
      all.writeBytes(f);
    }
    return all.toByteArray();
  }

  /** Reads a get_last_sale reply and checks that it answers {@code seqid}. */
  private static void assertLastSale(RawConnection c, int seqid) throws Exception {
    BenchService.get_last_sale_result result = new BenchService.get_last_sale_result();
    assertThat(RawConnection.decodeReply(PROTOCOL, c.readFrame(), result).seqid)
        .as("the reply read is the one to seqid %s", seqid)
        .isEqualTo(seqid);
    assertThat(result.success.getSymbol()).isEqualTo("S" + seqid);
  }

  /** Checks that {@code reply} is the timeout answer to {@code method}'s call {@code seqid}. */
  private static void assertTimedOut(byte[] reply, String method, int seqid) throws Exception {
    assertThat(timedOutMessage(reply, method, seqid)).isEqualTo(timeoutMessage(method));
  }

  private static String timeoutMessage(String method) {
    return method + " did not complete within handlerTimeout " + HANDLER_TIMEOUT.toMillis() + " ms";
  }

  /** The message of {@code reply}, an {@code INTERNAL_ERROR} answering {@code method seqid}. */
  private static String timedOutMessage(byte[] reply, String method, int seqid) throws Exception {
    TProtocol in =
        PROTOCOL.getProtocol(FrameInputTransport.of(new TConfiguration(), ByteBuffer.wrap(reply)));
    TMessage header = in.readMessageBegin();
    assertThat(header.type).as("an exception reply").isEqualTo(TMessageType.EXCEPTION);
    assertThat(header.seqid).isEqualTo(seqid);
    assertThat(header.name).isEqualTo(method);
    TApplicationException e = TApplicationException.readFrom(in);
    assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    return e.getMessage();
  }

  /** Polls {@code stat} until it reaches {@code expected}; returns when, from {@code since}. */
  private static long awaitStat(
      ThriftServer server, ToLongFunction<ServerStats> stat, long expected, long since)
      throws InterruptedException {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (stat.applyAsLong(server.stats()) < expected) {
      assertThat(System.nanoTime()).as("%s", server.stats()).isLessThan(deadline);
      Thread.sleep(5); // polling a counter
    }
    return System.nanoTime() - since;
  }

  private static void assertNearHandlerTimeout(long nanos, String what) {
    assertThat(nanos)
        .as("%s after %s ms (handlerTimeout %s)", what, nanos / 1_000_000, HANDLER_TIMEOUT)
        .isGreaterThanOrEqualTo(HANDLER_TIMEOUT.toNanos())
        .isLessThan(HANDLER_TIMEOUT.plus(SLACK).toNanos());
  }

  @Test
  void aSyncCallThatNeverReturnsIsAnsweredAtCallTimeoutAndTheConnectionGoesOn() throws Exception {
    Held handler = new Held();
    ThriftServer server = start(builder(handler).handlerTimeout(HANDLER_TIMEOUT));
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      long sent = System.nanoTime();
      c.write(concat(sleepCall(1), lastSaleCall(2)));
      if (blockedHandlerHoldsItsConnection()) {
        long counted = awaitStat(server, ServerStats::timedOutCalls, 1, sent);
        assertNearHandlerTimeout(counted, "timed out");
        handler.release.countDown(); // the IO thread is free again; the answer stays the timeout
      }
      byte[] first = c.readFrame();
      long answered = System.nanoTime() - sent;
      // On a loaded machine no worker may have started the call within the timeout: then it is
      // answered "not run" with the same reason, and never runs (checked below).
      String message = timedOutMessage(first, "sleep", 1);
      assertThat(message).isIn(timeoutMessage("sleep"), NotRun.PREFIX + timeoutMessage("sleep"));
      if (!blockedHandlerHoldsItsConnection()) {
        assertNearHandlerTimeout(answered, "answered");
      }
      assertLastSale(c, 2); // with the handler still blocked, unless it holds the connection
      if (!blockedHandlerHoldsItsConnection()) {
        assertNearHandlerTimeout(System.nanoTime() - sent, "the call behind it answered");
      }

      handler.release.countDown();
      boolean ran = server.stats().completedCalls() == 2; // 1 and 2, counted before they left
      if (ran) {
        assertThat(handler.returned.await(10, TimeUnit.SECONDS)).isTrue();
      }
      c.write(lastSaleCall(3)); // a stray late reply to seqid 1 would be read here instead
      assertLastSale(c, 3);
      ServerStats stats = server.stats();
      assertThat(stats.timedOutCalls()).as("%s", stats).isEqualTo(1);
      assertThat(stats.failedCalls()).as("the timeout is a failed call: %s", stats).isEqualTo(1);
      assertThat(stats.completedCalls())
          .as("2 and 3, and 1 if it had started when it timed out: %s", stats)
          .isEqualTo(ran ? 3 : 2);
      assertThat(handler.started.getCount())
          .as("the handler ran iff it started")
          .isEqualTo(ran ? 0 : 1);
      if (message.startsWith(NotRun.PREFIX)) {
        assertThat(ran).as("answered not run, and it did not run").isFalse();
      }
    } finally {
      handler.release.countDown();
    }
  }

  @Test
  void anAsyncCallThatNeverCallsBackIsAnsweredAtCallTimeoutAndItsLateResultDiscarded()
      throws Exception {
    NeverCallsBack handler = new NeverCallsBack();
    Outcomes outcomes = new Outcomes();
    ThriftServer server =
        start(asyncBuilder(handler).handlerTimeout(HANDLER_TIMEOUT).addInterceptor(outcomes));
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      long sent = System.nanoTime();
      c.write(concat(sleepCall(1), lastSaleCall(2)));
      byte[] first = c.readFrame();
      assertNearHandlerTimeout(System.nanoTime() - sent, "answered");
      assertTimedOut(first, "sleep", 1);
      assertLastSale(c, 2);

      // The handler calls back at last: nothing more may reach the connection for seqid 1. (It
      // was called unless a worker took longer than handlerTimeout to start the call.)
      handler.held.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS).onComplete(null);
      c.write(lastSaleCall(3));
      assertLastSale(c, 3);
      ServerStats stats = server.stats();
      assertThat(stats.timedOutCalls()).as("%s", stats).isEqualTo(1);
      assertThat(stats.failedCalls()).as("%s", stats).isEqualTo(1);
      assertThat(stats.completedCalls()).as("counted once, at the timeout: %s", stats).isEqualTo(3);
      assertThat(outcomes.seen)
          .as("the interceptor sees the timeout once, and never the late success")
          .containsExactlyInAnyOrder(
              "sleep:1:" + CallOutcome.TIMED_OUT,
              "get_last_sale:2:" + CallOutcome.SUCCESS,
              "get_last_sale:3:" + CallOutcome.SUCCESS);
    }
  }

  @Test
  void aOnewayCallThatNeverReturnsIsOnlyCounted() throws Exception {
    Held handler = new Held();
    ThriftServer server = start(builder(handler).handlerTimeout(HANDLER_TIMEOUT));
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      long sent = System.nanoTime();
      byte[] fire =
          RawConnection.encodeCall(
              PROTOCOL,
              "fire",
              TMessageType.ONEWAY,
              1,
              new BenchService.fire_args(ByteBuffer.allocate(4)));
      c.write(concat(RawConnection.frame(fire), lastSaleCall(2)));
      assertNearHandlerTimeout(awaitStat(server, ServerStats::timedOutCalls, 1, sent), "timed out");
      if (blockedHandlerHoldsItsConnection()) {
        handler.release.countDown();
      }
      assertLastSale(c, 2); // the first frame: a oneway call is never answered
      if (!blockedHandlerHoldsItsConnection()) {
        assertNearHandlerTimeout(System.nanoTime() - sent, "the call behind it answered");
      }
      handler.release.countDown();
      c.write(lastSaleCall(3));
      assertLastSale(c, 3);
      assertThat(server.stats().timedOutCalls()).isEqualTo(1);
    } finally {
      handler.release.countDown();
    }
  }

  @Test
  void withoutCallTimeoutASlowCallCompletesNormally() throws Exception {
    ThriftServer server = start(new FaultInjectingHandler());
    assertThat(server.config().handlerTimeout()).as("off by default").isZero();
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      c.write(concat(call("sleep", 1, new BenchService.sleep_args(700)), lastSaleCall(2)));
      assertThat(
              RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result())
                  .seqid)
          .isEqualTo(1);
      assertLastSale(c, 2);
    }
    assertThat(server.stats().timedOutCalls()).isZero();
    assertThat(server.stats().failedCalls()).isZero();
  }

  @Test
  void aNegativeCallTimeoutIsRefusedAtBuild() {
    ServerBuilder<?> b =
        builder(new FaultInjectingHandler()).handlerTimeout(Duration.ofSeconds(-1));
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("handlerTimeout: PT-1S (expected: >= 0");
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
