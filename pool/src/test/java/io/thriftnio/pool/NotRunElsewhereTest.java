package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.NotRun;
import io.thriftnio.pool.IdempotentRetryTest.Calls;
import io.thriftnio.pool.IdempotentRetryTest.Kind;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server's "not run" refusal ({@link NotRun}): the handler never ran, so every pool sends the
 * call to another endpoint whatever its method, outside the retry budget, at most once per other
 * endpoint; the refusal is counted apart ({@link PoolStats#notRun()}) and is no failure of the
 * endpoint. A refusal that says the server is draining also takes the endpoint out.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NotRunElsewhereTest {

  /** Round robin: the first call goes to the first endpoint, the refusing one. */
  private static PoolConfig.Builder config() {
    return PoolConfig.builder().balancer(Balancer.ROUND_ROBIN);
  }

  /** No retry budget at all: a call sent elsewhere after a refusal must not need one. */
  private static PoolConfig noBudget() {
    return config()
        .retryBudget(RetryBudgetConfig.builder().ratio(0).minRetriesPerSecond(0).build())
        .build();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNonIdempotentCallRefusedNotRunIsSentToTheOtherEndpoint(Kind kind) throws Exception {
    try (StubPeer refusing = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        Calls pool =
            IdempotentRetryTest.pool(kind, noBudget(), refusing.address(), healthy.address())) {
      refusing.mode = StubPeer.Mode.NOT_RUN;
      TradeReport report = pool.lastSale("ACME");
      assertThat(report.getSymbol()).isEqualTo("ACME");
      assertThat(refusing.refused).as("refused, not run").hasValue(1);
      assertThat(refusing.handled).hasValue(0);
      assertThat(healthy.handled).as("run once, elsewhere").hasValue(1);
      PoolStats stats = pool.stats();
      assertThat(stats.notRun()).isEqualTo(1);
      assertThat(stats.retries()).as("no retry budget spent").isZero();
      assertThat(stats.retriesRefused()).isZero();
      assertThat(stats.ejections()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anIdempotentCallRefusedNotRunIsSentElsewhereWithoutTheBudget(Kind kind) throws Exception {
    try (StubPeer refusing = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        Calls pool =
            IdempotentRetryTest.pool(kind, noBudget(), refusing.address(), healthy.address())) {
      refusing.mode = StubPeer.Mode.NOT_RUN;
      ByteBuffer payload = ByteBuffer.wrap("once".getBytes(StandardCharsets.UTF_8));
      assertThat(pool.echo(payload)).isEqualTo(payload);
      assertThat(refusing.refused).hasValue(1);
      assertThat(healthy.handled).hasValue(1);
      assertThat(pool.stats().notRun()).isEqualTo(1);
      assertThat(pool.stats().retriesRefused()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void whenEveryEndpointRefusesTheCallerGetsTheRefusalAfterOneAttemptEach(Kind kind)
      throws Exception {
    try (StubPeer a = StubPeer.start();
        StubPeer b = StubPeer.start();
        Calls pool = IdempotentRetryTest.pool(kind, config().build(), a.address(), b.address())) {
      a.mode = StubPeer.Mode.NOT_RUN;
      b.mode = StubPeer.Mode.NOT_RUN;
      assertThatThrownBy(() -> pool.lastSale("ACME"))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> {
                assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
                assertThat(NotRun.isNotRun(e)).isTrue();
              });
      assertThat(a.refused).as("one attempt per endpoint").hasValue(1);
      assertThat(b.refused).as("one attempt per endpoint").hasValue(1);
      assertThat(a.handled.get() + b.handled.get()).isZero();
      assertThat(pool.stats().notRun()).isEqualTo(2);
      assertThat(pool.stats().ejections()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aDrainingEndpointGetsNoNewCalls(Kind kind) throws Exception {
    try (StubPeer draining = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        Calls pool =
            IdempotentRetryTest.pool(
                kind, config().build(), draining.address(), healthy.address())) {
      draining.mode = StubPeer.Mode.NOT_RUN_DRAINING;
      for (int i = 0; i < 6; i++) {
        assertThat(pool.lastSale("ACME").getSymbol()).isEqualTo("ACME");
      }
      assertThat(draining.refused).as("refused once, then left alone").hasValue(1);
      assertThat(healthy.handled).hasValue(6);
      assertThat(pool.stats().notRun()).isEqualTo(1);
      assertThat(pool.stats().ejections()).isZero();
    }
  }

  /**
   * The last endpoint up stays up when its server drains (its calls hear the refusal), but the
   * connection that carried the refusal takes no new call and closes, so that the server finds it
   * quiet and ends its drain.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aConnectionToADrainingServerIsClosedEvenOnTheLastEndpoint(Kind kind) throws Exception {
    try (StubPeer draining = StubPeer.start();
        Calls pool = IdempotentRetryTest.pool(kind, config().build(), draining.address())) {
      draining.mode = StubPeer.Mode.NOT_RUN_DRAINING;
      assertThatThrownBy(() -> pool.lastSale("ACME"))
          .isInstanceOfSatisfying(
              TApplicationException.class, e -> assertThat(NotRun.isNotRun(e)).isTrue());
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (draining.openConnections() > 0) {
        assertThat(System.nanoTime() - until).as("connection closed within 10 s").isNegative();
        Thread.sleep(5); // polls the peer's count of open connections
      }
      assertThat(pool.stats().invalidated())
          .as("retired, not a failure")
          .isLessThanOrEqualTo(kind.name().startsWith("ASYNC") ? 1 : 0);
    }
  }

  /**
   * A draining endpoint is out only for its back-off: a server back on the same address (here the
   * same peer serving again) gets calls after a probe connects anew.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aDrainedEndpointServesAgainAfterItsBackoff(Kind kind) throws Exception {
    PoolConfig quick =
        config()
            .endpointHealth(
                EndpointHealthConfig.builder()
                    .backoff(Duration.ofMillis(50))
                    .maxBackoff(Duration.ofMillis(100))
                    .build())
            .build();
    try (StubPeer draining = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        Calls pool = IdempotentRetryTest.pool(kind, quick, draining.address(), healthy.address())) {
      draining.mode = StubPeer.Mode.NOT_RUN_DRAINING;
      assertThat(pool.lastSale("ACME").getSymbol()).isEqualTo("ACME");
      assertThat(draining.refused).hasValue(1);
      draining.mode = StubPeer.Mode.NORMAL;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (draining.handled.get() == 0) {
        assertThat(System.nanoTime() - until).as("served again within 10 s").isNegative();
        assertThat(pool.lastSale("ACME").getSymbol()).isEqualTo("ACME");
        Thread.sleep(5); // calls spread over the back-off, not a wait for a moment
      }
      assertThat(draining.refused).as("no call sent there while it was out").hasValue(1);
    }
  }

  /**
   * A lambda given to the sync pool's {@code call} may make several calls on its connection: the
   * refused one may follow one that ran, so the pool cannot send the lambda elsewhere.
   */
  @org.junit.jupiter.api.Test
  void aSyncLambdaIsNotSentElsewhere() throws Exception {
    try (StubPeer refusing = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftClientPool.builder(BenchService.Client::new)
                        .endpoints(refusing.address(), healthy.address()),
                    config().build())
                .build()) {
      refusing.mode = StubPeer.Mode.NOT_RUN;
      assertThatThrownBy(() -> pool.call(c -> c.get_last_sale("ACME")))
          .isInstanceOfSatisfying(
              TApplicationException.class, e -> assertThat(NotRun.isNotRun(e)).isTrue());
      assertThat(healthy.handled).hasValue(0);
      assertThat(pool.stats().notRun()).isEqualTo(1);
      assertThat(pool.stats().invalidated()).as("a whole reply: the connection stays").isZero();
    }
  }
}
