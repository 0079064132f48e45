package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.StrategyContractSuite;
import org.junit.jupiter.api.Test;

/**
 * The strategy contract on Grizzly (WORKER with 10 threads at least 5x SAME_THREAD on one selector
 * for 10 clients calling {@code sleep(100)}), plus {@code LEADER_FOLLOWER} under the same load.
 */
class GrizzlyStrategyContractTest extends StrategyContractSuite {

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Test
  void leaderFollowerServesTheSameLoadCorrectlyAndConcurrently() throws Exception {
    // Every call is checked by the suite (a failure fails the run). Ten followers let the ten
    // sleeping handlers overlap: well above the ~10 calls/s of one thread.
    double leaderFollower =
        sleepCallsPerSecond(
            newServerBuilder()
                .ioStrategy(IoStrategy.LEADER_FOLLOWER)
                .ioThreads(1)
                .workerThreads(CLIENTS));
    assertThat(leaderFollower).as("LEADER_FOLLOWER calls/s").isGreaterThanOrEqualTo(30.0);
  }
}
