package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An endpoint that accepts connections but breaks every call is ejected after {@link
 * PoolConfig#ejectAfterConsecutiveFailures()} failures in a row, and back after its back-off and
 * one probe once it answers again; the last endpoint up is never ejected.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OutlierEjectionTest {

  private static PoolConfig config() {
    return PoolConfig.builder()
        .balancer(Balancer.ROUND_ROBIN)
        .endpointHealth(
            EndpointHealthConfig.builder()
                .ejectAfterConsecutiveFailures(3)
                // Long enough for the ten calls made while ejected on a loaded machine: at 200 ms,
                // the first use of the assertions alone took 100-150 ms there and the probe came
                // mid-loop.
                .backoff(Duration.ofSeconds(1))
                .maxBackoff(Duration.ofSeconds(1))
                .build())
        .build();
  }

  /** One call, ignoring its outcome: these tests count where calls go. */
  private static void callQuietly(RetryBudgetTest.Pool pool) {
    try {
      pool.fired();
    } catch (Exception e) {
      // The breaking endpoint's calls fail; what the test looks at is where calls went.
    }
  }

  @ParameterizedTest
  @EnumSource(RetryBudgetTest.Kind.class)
  void ejectedAfterConsecutiveFailuresAndBackAfterAProbe(RetryBudgetTest.Kind kind)
      throws Exception {
    try (StubPeer breaking = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        RetryBudgetTest.Pool pool =
            RetryBudgetTest.pool(kind, config(), breaking.address(), healthy.address())) {
      breaking.mode = StubPeer.Mode.DROP_AFTER_HANDLER;
      // Round robin: every other call goes to the breaking endpoint until it is ejected.
      for (int i = 0; i < 6; i++) {
        callQuietly(pool);
      }
      assertThat(breaking.handled).hasValue(3);
      assertThat(pool.stats().ejections()).isEqualTo(1);
      int healthyBefore = healthy.handled.get();
      for (int i = 0; i < 10; i++) {
        assertThat(pool.fired()).as("while ejected, calls go elsewhere").isZero();
      }
      assertThat(breaking.handled).hasValue(3);
      assertThat(healthy.handled).hasValue(healthyBefore + 10);

      breaking.mode = StubPeer.Mode.NORMAL;
      // After the back-off a probe reaches it, and then it takes its share again.
      await("the revived endpoint taking its share again")
          .until(
              () -> {
                callQuietly(pool);
                return breaking.handled.get() >= 5;
              });
      assertThat(pool.stats().ejections()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(RetryBudgetTest.Kind.class)
  void theLastEndpointUpIsNeverEjected(RetryBudgetTest.Kind kind) throws Exception {
    try (StubPeer breaking = StubPeer.start();
        RetryBudgetTest.Pool pool = RetryBudgetTest.pool(kind, config(), breaking.address())) {
      breaking.mode = StubPeer.Mode.DROP_AFTER_HANDLER;
      for (int i = 0; i < 10; i++) {
        callQuietly(pool);
      }
      assertThat(breaking.handled).as("every call still reaches it").hasValue(10);
      assertThat(pool.stats().ejections()).isZero();
      breaking.mode = StubPeer.Mode.NORMAL;
      assertThat(pool.fired()).isZero();
    }
  }
}
