package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.CallContextSuite;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.tls.TestPki;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The call context suite on Grizzly servers: the three strategies, and LEADER_FOLLOWER with mutual
 * TLS.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class GrizzlyCallContextTest extends CallContextSuite {

  @Parameter ServerCell<GrizzlyThriftServer.Builder> cell;

  static Stream<ServerCell<GrizzlyThriftServer.Builder>> cells() {
    return Cells.select(
        GrizzlyCallContextTest.class,
        List.of(
            GrizzlyCells.defaults(SAME_THREAD),
            GrizzlyCells.defaults(WORKER),
            GrizzlyCells.defaults(LEADER_FOLLOWER),
            GrizzlyCells.defaults(LEADER_FOLLOWER)
                .withTls("mutual-tls", TestPki.shared().mutualServerTls().build())
                .asRepresentative()));
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return cell.newBuilder();
  }

  @Override
  protected IoStrategy strategy() {
    return cell.strategy();
  }

  @Override
  protected boolean tls() {
    return cell.tls() != null;
  }
}
