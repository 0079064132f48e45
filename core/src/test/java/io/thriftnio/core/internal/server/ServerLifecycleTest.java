package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.ServerCounters;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server lifecycle over a transport and connections without sockets: idempotent start and
 * close, a never-started close, a failed bind, the drain and its timeout, a close on an IO thread,
 * and a concurrent close.
 */
@Timeout(10)
class ServerLifecycleTest {

  private static final InetSocketAddress BOUND = new InetSocketAddress("127.0.0.1", 45678);

  /** Only to get a validated config. */
  private static final class Configs extends ServerBuilder<Configs> {
    ServerConfig get() {
      return config();
    }

    @Override
    public ThriftServer build() {
      throw new UnsupportedOperationException("configs only");
    }
  }

  /** A transport that counts what the lifecycle asks of it. */
  private static final class FakeTransport implements ServerLifecycle.Transport {
    final AtomicInteger binds = new AtomicInteger();
    final AtomicInteger stops = new AtomicInteger();
    final AtomicInteger stopsBegun = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    volatile IOException bindFailure;
    volatile Thread ioThread;

    @Override
    public InetSocketAddress bind() throws IOException {
      binds.incrementAndGet();
      if (bindFailure != null) {
        throw bindFailure;
      }
      return BOUND;
    }

    @Override
    public void stopAccepting() {
      stops.incrementAndGet();
    }

    @Override
    public void beginStopAccepting() {
      stopsBegun.incrementAndGet();
    }

    @Override
    public boolean inIoThread() {
      return Thread.currentThread() == ioThread;
    }

    @Override
    public void release() {
      releases.incrementAndGet();
    }

    @Override
    public String describe() {
      return "fake";
    }
  }

  /** A connection whose drain waits for its one pending call, which the test completes. */
  private static final class BusyHandle implements ConnectionHandle {
    final CountDownLatch drainStarted = new CountDownLatch(1);
    final AtomicReference<String> drainThread = new AtomicReference<>();
    final AtomicInteger closes = new AtomicInteger();
    Runnable onClose = () -> {};

    @Override
    public void startDrain() {
      drainThread.set(Thread.currentThread().getName());
      drainStarted.countDown();
    }

    @Override
    public int pendingCalls() {
      return 1;
    }

    @Override
    public void closeNow() {
      if (closes.incrementAndGet() == 1) {
        onClose.run();
      }
    }
  }

  private final ServerCounters counters = new ServerCounters();
  private final FakeTransport transport = new FakeTransport();
  private final ConnectionRegistry<ConnectionHandle> registry =
      new ConnectionRegistry<>(10, counters);

  private ServerLifecycle lifecycle(Configs configs) {
    ServerConfig config =
        configs.processor((in, out) -> {}).bind(new InetSocketAddress("127.0.0.1", 0)).get();
    ServerLifecycle lifecycle =
        new ServerLifecycle("Test server", "test", config, counters, registry, false);
    lifecycle.transport(transport);
    return lifecycle;
  }

  private BusyHandle busyConnection() {
    BusyHandle busy = new BusyHandle();
    RegisteredConnection<ConnectionHandle> c = registry.admit(busy, null, null, System.nanoTime());
    busy.onClose = () -> registry.closed(c);
    return busy;
  }

  @Test
  void startAndCloseAreIdempotent() throws Exception {
    ServerLifecycle lifecycle = lifecycle(new Configs());
    lifecycle.start();
    lifecycle.start();
    assertThat(transport.binds.get()).isEqualTo(1);
    assertThat(lifecycle.isRunning()).isTrue();
    assertThat(lifecycle.localAddress()).isEqualTo(BOUND);
    lifecycle.close();
    lifecycle.close();
    assertThat(lifecycle.isRunning()).isFalse();
    assertThat(transport.stops.get()).isEqualTo(1);
    assertThat(transport.releases.get()).isEqualTo(1);
    assertThatThrownBy(lifecycle::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("server closed: /127.0.0.1:0; build a new one");
  }

  @Test
  void closingANeverStartedServerReleasesWhatItOwns() {
    ServerLifecycle lifecycle =
        lifecycle(new Configs().ioStrategy(IoStrategy.WORKER).workerThreads(2));
    ThreadPoolExecutor workers = (ThreadPoolExecutor) lifecycle.callPath().worker;
    lifecycle.close();
    assertThat(transport.binds.get()).isZero();
    assertThat(transport.stops.get()).isZero();
    assertThat(transport.releases.get()).isEqualTo(1);
    assertThat(workers.isShutdown()).isTrue();
    assertThatThrownBy(lifecycle::localAddress)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("server not started: /127.0.0.1:0");
    assertThatThrownBy(lifecycle::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFailedBindReleasesEverythingAndRethrows() {
    ServerLifecycle lifecycle =
        lifecycle(new Configs().ioStrategy(IoStrategy.WORKER).workerThreads(2));
    BindException refused = new BindException("cannot bind /127.0.0.1:0: in use");
    transport.bindFailure = refused;
    assertThatThrownBy(lifecycle::start).isSameAs(refused);
    assertThat(lifecycle.isRunning()).isFalse();
    assertThat(transport.releases.get()).isEqualTo(1);
    assertThat(((ThreadPoolExecutor) lifecycle.callPath().worker).isShutdown()).isTrue();
    lifecycle.close();
    assertThat(transport.releases.get()).as("released once").isEqualTo(1);
  }

  @Test
  void theDrainClosesIdleConnectionsAtOnceAndTheRestAfterDrainTimeout() throws Exception {
    ServerLifecycle lifecycle = lifecycle(new Configs().drainTimeout(Duration.ofMillis(200)));
    lifecycle.start();
    FakeHandle idle = new FakeHandle();
    FakeHandle.admit(castRegistry(), idle);
    BusyHandle busy = busyConnection();
    long start = System.nanoTime();
    lifecycle.close();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(idle.drains.get()).isEqualTo(1);
    assertThat(idle.closes.get()).isEqualTo(1);
    assertThat(busy.drainStarted.getCount()).isZero();
    assertThat(busy.closes.get()).as("closed once the drain timed out").isEqualTo(1);
    assertThat(tookMillis).isBetween(200L, 5_000L);
    assertThat(registry.size()).isZero();
  }

  @Test
  void aConnectionThatAnswersDuringTheDrainEndsItEarly() throws Exception {
    ServerLifecycle lifecycle = lifecycle(new Configs().drainTimeout(Duration.ofSeconds(60)));
    lifecycle.start();
    BusyHandle busy = busyConnection();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(lifecycle::close);
    assertThat(busy.drainStarted.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(closing).isNotDone();
    busy.closeNow(); // its last call answered
    closing.get(5, TimeUnit.SECONDS);
    assertThat(transport.releases.get()).isEqualTo(1);
  }

  @Test
  void theListenerStaysOpenThroughTheDrainAndAConnectionAcceptedMeanwhileDrainsAtOnce()
      throws Exception {
    ServerLifecycle lifecycle = lifecycle(new Configs().drainTimeout(Duration.ofSeconds(60)));
    lifecycle.start();
    BusyHandle busy = busyConnection();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(lifecycle::close);
    assertThat(busy.drainStarted.await(5, TimeUnit.SECONDS)).isTrue();
    // Closing the listener now would reset the connections in its backlog, calls written (issue
    // 38).
    assertThat(transport.stops.get()).as("listening through the drain").isZero();
    FakeHandle late = new FakeHandle();
    late.pending = 1; // a call read, to be answered not run
    RegisteredConnection<FakeHandle> admitted = FakeHandle.admit(castRegistry(), late);
    assertThat(admitted).as("accepted during the drain: served, not refused").isNotNull();
    assertThat(admitted.probeOnly()).isFalse();
    castRegistry().settle(admitted);
    assertThat(late.drains.get()).as("drains from the start: its calls answered not run").isOne();

    busy.closeNow(); // its last call answered: the connections open before the drain are done
    await("the transport stopped once")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(1))
        .until(() -> transport.stops.get() == 1);
    assertThat(closing).as("the late connection drains before close() returns").isNotDone();
    late.pending = 0;
    late.closeNow(); // answered, and quiet: it closes
    closing.get(5, TimeUnit.SECONDS);
    assertThat(FakeHandle.admit(castRegistry(), new FakeHandle())).isNull();
    assertThat(registry.size()).isZero();
  }

  /** With a health path, HTTP accepted. */
  private static Configs withHealthPath() {
    return new Configs()
        .wireKinds(io.thriftnio.core.WireKind.FRAMED, io.thriftnio.core.WireKind.HTTP)
        .healthPath("/health");
  }

  @Test
  void withAHealthPathTheListenerStaysOpenForProbesUntilTheDrainEnds() throws Exception {
    ServerLifecycle lifecycle = lifecycle(withHealthPath().drainTimeout(Duration.ofSeconds(60)));
    lifecycle.start();
    BusyHandle busy = busyConnection();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(lifecycle::close);
    assertThat(busy.drainStarted.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(transport.stops.get()).as("listening through the drain").isZero();
    FakeHandle probe = new FakeHandle();
    RegisteredConnection<FakeHandle> admitted = FakeHandle.admit(castRegistry(), probe);
    assertThat(admitted.probeOnly()).as("accepted during the drain: probe only").isTrue();
    assertThat(closing).as("the drain waits for the call, not the probe connection").isNotDone();

    busy.closeNow(); // its last call answered: the drain is over
    closing.get(5, TimeUnit.SECONDS);
    assertThat(transport.stops.get()).isEqualTo(1);
    assertThat(probe.closes.get()).as("closed by the drain's end").isEqualTo(1);
    assertThat(probe.drains.get()).isZero();
    assertThat(FakeHandle.admit(castRegistry(), new FakeHandle())).isNull();
    assertThat(registry.size()).isZero();
  }

  @Test
  void withAHealthPathACloseOnAnIoThreadKeepsListeningForProbes() throws Exception {
    ServerLifecycle lifecycle = lifecycle(withHealthPath().drainTimeout(Duration.ofSeconds(60)));
    lifecycle.start();
    BusyHandle busy = busyConnection();
    transport.ioThread = Thread.currentThread();
    lifecycle.close(); // returns at once, the drain on the close thread
    assertThat(registry.isClosing()).isTrue();
    assertThat(transport.stopsBegun.get()).as("the listener stays open").isZero();
    assertThat(FakeHandle.admit(castRegistry(), new FakeHandle()).probeOnly()).isTrue();
    assertThat(busy.drainStarted.await(5, TimeUnit.SECONDS)).isTrue();
    transport.ioThread = null;
    busy.closeNow();
    lifecycle.close(); // waits for the close thread
    assertThat(transport.stops.get()).isEqualTo(1);
    assertThat(registry.size()).isZero();
  }

  @Test
  void aCloseOnAnIoThreadHandsTheDrainToACloseThreadAndALaterCloseWaitsForIt() throws Exception {
    ServerLifecycle lifecycle = lifecycle(new Configs().drainTimeout(Duration.ofSeconds(60)));
    lifecycle.start();
    BusyHandle busy = busyConnection();
    transport.ioThread = Thread.currentThread();
    lifecycle.close(); // returns at once: waiting here would stall this loop's connections
    assertThat(lifecycle.isRunning()).isFalse();
    assertThat(registry.isClosing()).as("new connections drain at once").isTrue();
    assertThat(transport.stopsBegun.get()).as("the listening socket stays open").isZero();
    assertThat(busy.drainStarted.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(busy.drainThread.get()).isEqualTo("test-close-45678");
    lifecycle.close(); // still on the IO thread: returns, does not wait
    CompletableFuture<Integer> second =
        CompletableFuture.supplyAsync(
            () -> {
              lifecycle.close();
              return transport.releases.get();
            });
    assertThat(second).isNotDone();
    busy.closeNow();
    assertThat(second.get(5, TimeUnit.SECONDS))
        .as("released when the second close returned")
        .isEqualTo(1);
  }

  @Test
  void beforeDrainHooksRunInOrderWhileTheServerStillAcceptsThenTheDrainBegins() throws Exception {
    ServerLifecycle lifecycle = lifecycle(new Configs().drainTimeout(Duration.ofSeconds(60)));
    lifecycle.start();
    BusyHandle busy = busyConnection();
    java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    assertThat(
            lifecycle.beforeDrain(
                () ->
                    seen.add(
                        "first: accepting="
                            + !registry.isClosing()
                            + " stops="
                            + transport.stops.get()
                            + " draining="
                            + (busy.drainStarted.getCount() == 0))))
        .isTrue();
    assertThat(
            lifecycle.beforeDrain(
                () -> {
                  seen.add("second");
                  throw new IllegalStateException("a failing hook (from the test)");
                }))
        .isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(lifecycle::close);
    assertThat(busy.drainStarted.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(seen).containsExactly("first: accepting=true stops=0 draining=false", "second");
    assertThat(lifecycle.beforeDrain(() -> seen.add("late"))).as("added after close").isFalse();
    busy.closeNow();
    closing.get(5, TimeUnit.SECONDS);
    assertThat(seen).hasSize(2);
  }

  @Test
  void withHooksACloseOnAnIoThreadRunsThemOnTheCloseThreadBeforeItStopsAccepting()
      throws Exception {
    ServerLifecycle lifecycle = lifecycle(new Configs().drainTimeout(Duration.ofSeconds(60)));
    lifecycle.start();
    BusyHandle busy = busyConnection();
    CountDownLatch hookRunning = new CountDownLatch(1);
    CountDownLatch hookMayReturn = new CountDownLatch(1);
    AtomicReference<String> hookThread = new AtomicReference<>();
    lifecycle.beforeDrain(
        () -> {
          hookThread.set(Thread.currentThread().getName());
          hookRunning.countDown();
          try {
            hookMayReturn.await(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    transport.ioThread = Thread.currentThread();
    lifecycle.close(); // returns at once, as without hooks
    assertThat(hookRunning.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(hookThread.get()).isEqualTo("test-close-45678");
    assertThat(registry.isClosing()).as("still accepting while the hook runs").isFalse();
    assertThat(transport.stopsBegun.get()).isZero();
    hookMayReturn.countDown();
    assertThat(busy.drainStarted.await(5, TimeUnit.SECONDS)).isTrue();
    busy.closeNow();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private ConnectionRegistry<FakeHandle> castRegistry() {
    return (ConnectionRegistry) registry;
  }
}
