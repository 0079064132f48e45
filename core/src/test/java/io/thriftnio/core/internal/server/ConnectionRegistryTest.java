package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ServerStats;
import io.thriftnio.core.util.internal.ServerCounters;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Admission against maxConnections, counting, closing, drain and waiting. No sockets. */
@Timeout(10)
class ConnectionRegistryTest {

  private final ServerCounters counters = new ServerCounters();
  private final ConnectionRegistry<FakeHandle> registry = new ConnectionRegistry<>(2, counters);

  @Test
  void admitsUpToMaxConnectionsAndRefusesOneMore() {
    RegisteredConnection<FakeHandle> a = FakeHandle.admit(registry, new FakeHandle());
    RegisteredConnection<FakeHandle> b = FakeHandle.admit(registry, new FakeHandle());
    assertThat(a).isNotNull();
    assertThat(b).isNotNull();
    assertThat(b.id()).isGreaterThan(a.id());
    assertThat(FakeHandle.admit(registry, new FakeHandle())).as("max + 1").isNull();
    ServerStats stats = counters.snapshot(ServerStats.class);
    assertThat(stats.acceptedConnections()).isEqualTo(2);
    assertThat(stats.openConnections()).isEqualTo(2);
    assertThat(stats.rejectedConnections()).isEqualTo(1);

    a.handle().closeNow();
    assertThat(FakeHandle.admit(registry, new FakeHandle())).as("a slot freed").isNotNull();
    assertThat(counters.snapshot(ServerStats.class).openConnections()).isEqualTo(2);
  }

  @Test
  void aCloseIsCountedOnce() {
    RegisteredConnection<FakeHandle> a = FakeHandle.admit(registry, new FakeHandle());
    registry.closed(a);
    registry.closed(a);
    assertThat(registry.size()).isZero();
    assertThat(counters.snapshot(ServerStats.class).openConnections()).isZero();
    assertThat(FakeHandle.admit(registry, new FakeHandle())).isNotNull();
    assertThat(FakeHandle.admit(registry, new FakeHandle())).isNotNull();
  }

  @Test
  void whileClosingNewConnectionsAreRefusedWithoutCountingThemAsRejected() {
    registry.refuseNew();
    assertThat(registry.isClosing()).isTrue();
    assertThat(FakeHandle.admit(registry, new FakeHandle())).isNull();
    assertThat(counters.snapshot(ServerStats.class).rejectedConnections()).isZero();
    assertThat(counters.snapshot(ServerStats.class).acceptedConnections()).isZero();
  }

  @Test
  void aTlsFailureIsCountedOncePerConnectionAndClosesIt() {
    FakeHandle handle = new FakeHandle();
    RegisteredConnection<FakeHandle> a = FakeHandle.admit(registry, handle);
    registry.tlsFailed(a, "bad certificate");
    registry.timedOut(
        a, new TimeoutPolicy.Verdict(TimeoutPolicy.Kind.TLS_HANDSHAKE, "handshake timed out"));
    assertThat(counters.snapshot(ServerStats.class).tlsFailures()).isEqualTo(1);
    assertThat(counters.snapshot(ServerStats.class).timedOutConnections()).isZero();
    assertThat(handle.closes.get()).isEqualTo(2); // closing twice is harmless
    assertThat(registry.size()).isZero();
  }

  @Test
  void aTimeoutIsCountedAndClosesTheConnection() {
    FakeHandle handle = new FakeHandle();
    RegisteredConnection<FakeHandle> a =
        registry.admit(handle, new InetSocketAddress("127.0.0.1", 4242), null, System.nanoTime());
    handle.onClose = () -> registry.closed(a);
    registry.timedOut(a, new TimeoutPolicy.Verdict(TimeoutPolicy.Kind.IDLE, "no request"));
    assertThat(counters.snapshot(ServerStats.class).timedOutConnections()).isEqualTo(1);
    assertThat(handle.closes.get()).isEqualTo(1);
    assertThat(a.toString()).contains("127.0.0.1:4242");
  }

  @Test
  void drainAllDrainsEveryConnectionAndTheWaitEndsWhenTheLastCloses() throws Exception {
    FakeHandle idle = new FakeHandle();
    FakeHandle busy = new FakeHandle();
    busy.pending = 3;
    FakeHandle.admit(registry, idle);
    RegisteredConnection<FakeHandle> b = FakeHandle.admit(registry, busy);
    registry.drainAll();
    assertThat(idle.drains.get()).isEqualTo(1);
    assertThat(busy.drains.get()).isEqualTo(1);
    assertThat(registry.size()).isEqualTo(1);
    assertThat(registry.pendingCalls()).isEqualTo(3);
    assertThat(registry.awaitAllClosed(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20)))
        .as("a connection with calls pending is still open")
        .isFalse();
    CompletableFuture<Boolean> waited =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return registry.awaitAllClosed(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            });
    busy.closeNow();
    assertThat(waited.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(b.handle().closes.get()).isEqualTo(1);
  }

  @Test
  void closeAllClosesWhatTheDrainLeft() throws Exception {
    FakeHandle busy = new FakeHandle();
    busy.pending = 1;
    FakeHandle.admit(registry, busy);
    registry.drainAll();
    registry.closeAll();
    assertThat(registry.awaitAllClosed(System.nanoTime())).isTrue();
  }

  @Test
  void duringADrainWithProbesNewConnectionsAreProbeConnectionsTheDrainNeitherDrainsNorAwaits()
      throws Exception {
    FakeHandle busy = new FakeHandle();
    busy.pending = 1;
    RegisteredConnection<FakeHandle> served = FakeHandle.admit(registry, busy);
    registry.admitProbesOnly();
    assertThat(registry.isClosing()).isTrue();
    FakeHandle probeHandle = new FakeHandle();
    RegisteredConnection<FakeHandle> probe = FakeHandle.admit(registry, probeHandle);
    assertThat(served.probeOnly()).isFalse();
    assertThat(probe.probeOnly()).as("accepted during the drain").isTrue();
    assertThat(FakeHandle.admit(registry, new FakeHandle()))
        .as("a probe connection counts against maxConnections")
        .isNull();
    registry.drainAll();
    assertThat(probeHandle.drains).as("a probe connection is not drained").hasValue(0);
    assertThat(registry.awaitDrained(System.nanoTime())).as("a call in flight").isFalse();
    busy.closeNow();
    assertThat(registry.awaitDrained(System.nanoTime()))
        .as("drained with a probe connection open")
        .isTrue();
    assertThat(registry.awaitAllClosed(System.nanoTime())).isFalse();

    registry.refuseNew();
    registry.admitProbesOnly(); // never back
    probeHandle.closeNow();
    assertThat(FakeHandle.admit(registry, new FakeHandle())).as("the drain is over").isNull();
    assertThat(registry.awaitAllClosed(System.nanoTime())).isTrue();
    assertThat(counters.snapshot(ServerStats.class).acceptedConnections()).isEqualTo(2);
  }

  @Test
  void settleDrainsWhatTheDrainMayHaveMissedAndClosesProbesOnceRefused() {
    FakeHandle before = new FakeHandle();
    before.pending = 1;
    RegisteredConnection<FakeHandle> admittedBefore = FakeHandle.admit(registry, before);
    registry.settle(admittedBefore);
    assertThat(before.drains).as("still serving").hasValue(0);
    registry.admitProbesOnly();
    registry.settle(admittedBefore);
    assertThat(before.drains).as("admitted just before the close began").hasValue(1);
    FakeHandle probeHandle = new FakeHandle();
    RegisteredConnection<FakeHandle> probe = FakeHandle.admit(registry, probeHandle);
    registry.settle(probe);
    assertThat(probeHandle.closes).as("its probe is still to be answered").hasValue(0);
    registry.refuseNew();
    registry.settle(probe);
    assertThat(probeHandle.drains).hasValue(0);
    assertThat(probeHandle.closes).as("the drain's end may have missed it").hasValue(1);
  }

  @Test
  void maxConnectionsMustBePositive() {
    assertThatThrownBy(() -> new ConnectionRegistry<FakeHandle>(0, counters))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxConnections: 0 (expected: > 0)");
  }
}
