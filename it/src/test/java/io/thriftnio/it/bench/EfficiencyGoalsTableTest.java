package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 41, item 6: the efficiency report's goals table, each goal met or not with its number. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EfficiencyGoalsTableTest {

  private static final EfficiencyScenario TSOCKET =
      new EfficiencyScenario("tsocket-40", "tsocket", 40, 1, null);
  private static final EfficiencyScenario ASYNC =
      new EfficiencyScenario("async-8x32", "netty-async", 8, 32, null);

  /** 10,000 calls: {@code serverUs} and {@code clientUs} of CPU per call. */
  private static EfficiencyResult cell(
      String server, EfficiencyScenario sc, double serverUs, double clientUs) {
    return new EfficiencyResult(
        server,
        sc,
        List.of(
            new EfficiencyResult.Sample(
                10_000,
                2.0,
                (long) (serverUs * 10_000_000),
                (long) (clientUs * 10_000_000),
                0,
                50,
                150,
                0,
                0,
                0.0,
                0.0)),
        null);
  }

  @Test
  void everyGoalOfIssue41IsMetOrNotWithItsNumber() {
    List<EfficiencyResult> run =
        List.of(
            cell("raw-echo", ASYNC, 0.4, 1.0),
            cell("thrift-threadpool", TSOCKET, 15.0, 10.0),
            cell("drift", TSOCKET, 13.0, 10.0),
            cell("netty/worker", TSOCKET, 16.5, 10.0),
            cell("netty/worker", ASYNC, 1.8, 1.7),
            cell("grizzly/worker", TSOCKET, 11.0, 10.0),
            cell("netty/same-thread", ASYNC, 1.0, 2.5),
            cell("grizzly/leader-follower", ASYNC, 7.0, 1.6));

    String table = EfficiencyGoals.table(run);

    assertThat(table)
        .contains(
            "| leader-follower, pipelined: server CPU per call <= 2.0 us |"
                + " grizzly/leader-follower | 7.00 us | not met |")
        .contains(
            "| WORKER, 40 blocking clients: server CPU per call <= 1.0x Drift's | netty/worker |"
                + " 1.27x | not met |")
        .contains(
            "| WORKER, 40 blocking clients: server CPU per call <= 0.8x thrift-threadpool's |"
                + " grizzly/worker | 0.73x | met |")
        .contains(
            "| WORKER, pipelined: server CPU per call <= 2.0 us | netty/worker | 1.80 us | met |")
        .contains(
            "| WORKER, pipelined: server CPU per call <= 2.0 us | grizzly/worker | - |"
                + " - (did not run) |")
        .contains(
            "| SAME_THREAD, pipelined: server CPU per call <= 2.0x the raw echo's |"
                + " netty/same-thread | 2.50x | not met |")
        .contains(
            "| pipelined client (netty-async): client CPU per call <= 2.0 us |"
                + " netty/same-thread | 2.50 us | not met |")
        .contains(
            "| pipelined client (netty-async): client CPU per call <= 2.0 us | netty/worker |"
                + " 1.70 us | met |")
        .contains("measured by `overload`");
    assertThat(EfficiencyGoals.table(List.of(cell("netty/worker", TSOCKET, 16.5, 10.0))))
        .contains("| netty/worker | - | - (its baseline did not run) |");
  }
}
