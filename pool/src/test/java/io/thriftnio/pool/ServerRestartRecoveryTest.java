package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pool rule for outages: after any sequence of connect failures, timeouts and interrupts, once
 * the endpoint accepts connections again a pool serves within its back-off plus a connect. A real
 * server is restarted {@value #RESTARTS} times on one port under {@value #CALLERS} callers, with
 * {@code minIdle} set so that the pool's own top-up connects fail alongside the callers' probes
 * (the mix that once left a pool down for good); after each restart every pool must serve again.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ServerRestartRecoveryTest {
  private static final int RESTARTS = 20;
  private static final int CALLERS = 200;
  private static final Duration MAX_BACKOFF = Duration.ofMillis(200);

  /** Far above the longest back-off plus a connect: a pool that misses it has stopped trying. */
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(15);

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration BORROW_TIMEOUT = Duration.ofSeconds(2);

  /**
   * How long a caller waits for an async call: the pool's bounds (a wait in the queue, a connect,
   * the call's own timeout) and a margin. Every call completes within them; one that does not is a
   * call left hanging, reported as a {@code TimeoutException}, not an outage.
   */
  private static final Duration CALL_WAIT =
      BORROW_TIMEOUT.plus(CONNECT_TIMEOUT).plus(CALL_TIMEOUT).plus(Duration.ofSeconds(3));

  private static final ClientOptions OPTIONS =
      ClientOptions.builder().connectTimeout(CONNECT_TIMEOUT).callTimeout(CALL_TIMEOUT).build();

  private static final PoolConfig CONFIG =
      PoolConfig.builder()
          .maxTotal(64)
          .maxPerEndpoint(64)
          .maxIdlePerEndpoint(64)
          .idleConnections(
              IdleConnectionsConfig.builder()
                  .minPerEndpoint(16)
                  .evictionInterval(Duration.ofMillis(20)) // top-ups race the probes
                  .build())
          .endpointHealth(
              EndpointHealthConfig.builder()
                  .backoff(Duration.ofMillis(10))
                  .maxBackoff(MAX_BACKOFF)
                  .build())
          .borrowTimeout(BORROW_TIMEOUT)
          .build();

  private InetSocketAddress address = new InetSocketAddress("127.0.0.1", 0);
  private ThriftServer server;

  @BeforeEach
  void startServer() throws Exception {
    startServerOnAddress();
    address = (InetSocketAddress) server.localAddress();
  }

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private void startServerOnAddress() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        server =
            NettyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .ioStrategy(IoStrategy.SAME_THREAD)
                .ioThreads(1)
                .bind(address)
                .build()
                .start();
        return;
      } catch (RuntimeException e) {
        // The port may be held for a moment by the closing server's last sockets.
        if (!(e.getCause() instanceof BindException) || System.nanoTime() - deadline > 0) {
          throw e;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    }
  }

  /** One call through the pool under test. */
  interface Call {
    void run() throws Exception;
  }

  @Test
  void syncPoolServesAfterEveryRestart() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        PoolSettings.with(
                ThriftClientPool.builder(BenchService.Client::new)
                    .options(OPTIONS)
                    .endpoints(address),
                CONFIG)
            .build()) {
      restartUnderLoad(() -> pool.call(c -> c.fired()), pool::stats);
    }
  }

  @Test
  void asyncClientPoolServesAfterEveryRestart() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        PoolSettings.with(
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(address),
                CONFIG)
            .options(OPTIONS)
            .build()) {
      restartUnderLoad(
          () -> unwrap(() -> pool.<Long>call((c, cb) -> c.fired(cb)).get(waitMillis(), MS)),
          pool::stats);
    }
  }

  @Test
  void channelPoolServesAfterEveryRestart() throws Exception {
    try (NettyClientIo resources = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            PoolSettings.with(
                    // The channels' callTimeout bounds each call: without it, the 30 s default
                    // outlasted the callers' wait, and a call on a connection left unanswered read
                    // as never answered.
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(ChannelIo.of(e -> resources.openChannel(e, OPTIONS)))
                        .endpoints(address),
                    CONFIG)
                .maxCallsInFlightPerConnection(8)
                .build()) {
      restartUnderLoad(
          () ->
              unwrap(
                  () ->
                      pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                          .get(waitMillis(), MS)),
          pool::stats);
    }
  }

  private static final TimeUnit MS = TimeUnit.MILLISECONDS;

  private static long waitMillis() {
    return CALL_WAIT.toMillis();
  }

  interface Waited {
    Object get() throws Exception;
  }

  private static void unwrap(Waited w) throws Exception {
    try {
      w.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private void restartUnderLoad(Call call, java.util.function.Supplier<PoolStats> stats)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong successes = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
    List<String> blankMessages = new ArrayList<>();
    List<Thread> callers = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      Thread t =
          new Thread(
              () -> {
                while (!stop.get()) {
                  try {
                    call.run();
                    successes.incrementAndGet();
                  } catch (Exception e) {
                    failures.incrementAndGet();
                    errors
                        .computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicInteger())
                        .incrementAndGet();
                    if (e.getMessage() == null || e.getMessage().isBlank()) {
                      synchronized (blankMessages) {
                        blankMessages.add(e.toString());
                      }
                    }
                    // A caller that fails at once would spin; real callers back off a little too.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                  }
                }
              },
              "caller-" + i);
      t.setDaemon(true);
      t.start();
      callers.add(t);
    }
    List<Long> recoveryMillis = new ArrayList<>();
    try {
      awaitSuccesses(successes, "before the first restart", stats);
      for (int restart = 1; restart <= RESTARTS; restart++) {
        server.close();
        long failed = failures.get();
        await("restart " + restart + ": the callers saw the outage")
            .until(() -> failures.get() > failed);
        startServerOnAddress();
        long start = System.nanoTime();
        awaitSuccesses(successes, "after restart " + restart, stats);
        recoveryMillis.add((System.nanoTime() - start) / 1_000_000);
      }
    } finally {
      stop.set(true);
      long joinBy = System.nanoTime() + CALL_WAIT.plusSeconds(5).toNanos();
      for (Thread t : callers) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinBy - System.nanoTime())));
      }
    }
    // A caller still waiting would hold its call's slot and leave the books below unsettled.
    assertThat(callers.stream().filter(Thread::isAlive).map(Thread::getName))
        .as("callers still in a call %s after they were told to stop", CALL_WAIT)
        .isEmpty();
    // Only the errors of an outage: a lost connection, a refused connect, the endpoint down.
    assertThat(errors.keySet())
        .as("errors %s; recovery ms per restart %s", errors, recoveryMillis)
        .isSubsetOf(
            "TTransportException",
            "PoolException",
            "PoolTimeoutException",
            "TApplicationException",
            "IOException",
            "SocketException",
            "ConnectException");
    assertThat(blankMessages).as("errors without a message").isEmpty();
    PoolStats s = stats.get();
    assertThat(s.active()).as("%s", s).isZero();
    assertThat(s.created() - s.destroyed()).as("%s", s).isEqualTo(s.total());
  }

  private void awaitSuccesses(
      AtomicLong successes, String when, java.util.function.Supplier<PoolStats> stats)
      throws InterruptedException {
    long from = successes.get();
    await("successes.get() >= from + CALLERS")
        .atMost(RECOVERY_BOUND)
        .untilAsserted(
            () ->
                assertThat(successes.get() >= from + CALLERS)
                    .as(
                        "%d calls served within %s %s (%s)",
                        CALLERS, RECOVERY_BOUND, when, stats.get())
                    .isTrue());
  }
}
