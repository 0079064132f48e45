package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The load engine's counting and its bounds, with lanes that need no server. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LoadEngineTest {

  private static CellSpec cell(Duration warmup, Duration duration, long maxCalls) {
    return new CellSpec(
        "fake",
        "fake",
        Workload.echo(300),
        "binary",
        1,
        1,
        0,
        false,
        warmup,
        duration,
        maxCalls,
        Duration.ofSeconds(1));
  }

  private static ClientLoad load(List<ClientLoad.Lane> lanes, AtomicBoolean closed) {
    return new ClientLoad() {
      @Override
      public List<Lane> lanes() {
        return lanes;
      }

      @Override
      public void close() {
        closed.set(true);
      }
    };
  }

  @Test
  void aFailedConnectionStopsItsLaneAndCountsOnce() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ClientLoad.SyncLane failing =
        () -> {
          calls.incrementAndGet();
          throw new TTransportException("peer reset");
        };
    AtomicBoolean closed = new AtomicBoolean();
    CellResult r =
        LoadEngine.run(
            cell(Duration.ZERO, Duration.ofMillis(200), 0), load(List.of(failing), closed));
    assertThat(r.errors()).isEqualTo(1);
    assertThat(calls).hasValue(1);
    assertThat(r.calls()).isZero();
    assertThat(closed).isTrue();
  }

  @Test
  void aCallTheServerRefusedIsCountedAndItsLaneGoesOn() throws Exception {
    AtomicInteger n = new AtomicInteger();
    ClientLoad.SyncLane refusedAtFirst =
        () -> {
          if (n.incrementAndGet() <= 3) {
            throw new TApplicationException(
                TApplicationException.INTERNAL_ERROR, "not run: server overloaded");
          }
          return true;
        };
    CellResult r =
        LoadEngine.run(
            cell(Duration.ZERO, Duration.ofMillis(100), 1000),
            load(List.of(refusedAtFirst), new AtomicBoolean()));
    assertThat(r.errors()).isEqualTo(3);
    assertThat(r.calls()).as("calls after the refusals").isGreaterThanOrEqualTo(1000);
  }

  @Test
  void aPipelinedCallTheServerRefusedKeepsItsStreamGoing() throws Exception {
    AtomicInteger n = new AtomicInteger();
    ClientLoad.AsyncLane refusedAtFirst =
        new ClientLoad.AsyncLane() {
          @Override
          public CompletableFuture<Boolean> call() {
            if (n.incrementAndGet() <= 3) {
              return CompletableFuture.failedFuture(
                  new TApplicationException(
                      TApplicationException.INTERNAL_ERROR, "not run: server overloaded"));
            }
            return CompletableFuture.completedFuture(true);
          }

          @Override
          public int depth() {
            return 1;
          }
        };
    CellResult r =
        LoadEngine.run(
            cell(Duration.ZERO, Duration.ofMillis(100), 1000),
            load(List.of(refusedAtFirst), new AtomicBoolean()));
    assertThat(r.errors()).isEqualTo(3);
    assertThat(r.calls()).as("calls after the refusals").isGreaterThanOrEqualTo(1000);
  }

  @Test
  void badPayloadsAreCountedApartFromErrors() throws Exception {
    AtomicInteger n = new AtomicInteger();
    ClientLoad.SyncLane everyOtherBad = () -> n.incrementAndGet() % 2 == 0;
    CellResult r =
        LoadEngine.run(
            cell(Duration.ZERO, Duration.ofMillis(100), 1000),
            load(List.of(everyOtherBad), new AtomicBoolean()));
    assertThat(r.errors()).isZero();
    assertThat(r.checkFailures()).isPositive();
    assertThat(r.calls()).isGreaterThanOrEqualTo(1000);
  }

  @Test
  void asyncLanesKeepTheirDepthAndAFailingPoolLaneIsPaced() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger inFlight = new AtomicInteger();
      AtomicInteger maxInFlight = new AtomicInteger();
      ClientLoad.AsyncLane deep =
          new ClientLoad.AsyncLane() {
            @Override
            public int depth() {
              return 4;
            }

            @Override
            public CompletableFuture<Boolean> call() {
              maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              CompletableFuture<Boolean> f = new CompletableFuture<>();
              timer.schedule(
                  () -> {
                    inFlight.decrementAndGet();
                    f.complete(true);
                  },
                  1,
                  TimeUnit.MILLISECONDS);
              return f;
            }
          };
      ClientLoad.AsyncLane failingAtOnce =
          new ClientLoad.AsyncLane() {
            @Override
            public int depth() {
              return 1;
            }

            @Override
            public CompletableFuture<Boolean> call() {
              return CompletableFuture.failedFuture(new TTransportException("refused"));
            }

            @Override
            public boolean continuesAfterError() {
              return true;
            }
          };
      CellResult r =
          LoadEngine.run(
              cell(Duration.ofMillis(50), Duration.ofMillis(300), 0),
              load(List.of(deep, failingAtOnce), new AtomicBoolean()));
      assertThat(maxInFlight).hasValue(4);
      assertThat(r.calls()).isPositive();
      // About one failure per millisecond of the 350 ms, not a spinning loop (millions).
      assertThat(r.errors()).isBetween(1L, 2_000L);
    } finally {
      timer.shutdownNow();
    }
  }
}
