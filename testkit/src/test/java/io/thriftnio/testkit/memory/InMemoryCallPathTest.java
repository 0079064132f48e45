package io.thriftnio.testkit.memory;

import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.CallPathSuite;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ServerCell;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** The call path suite on {@link InMemoryThriftServer}: core's call path without socket IO. */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class InMemoryCallPathTest extends CallPathSuite {

  @Parameter ServerCell<InMemoryThriftServer.Builder> cell;

  static Stream<ServerCell<InMemoryThriftServer.Builder>> cells() {
    return Cells.select(
        InMemoryCallPathTest.class,
        List.of(
            ServerCell.of("memory", "memory", InMemoryThriftServer::builder, SAME_THREAD)
                .asRepresentative(),
            ServerCell.of("memory", "memory", InMemoryThriftServer::builder, WORKER)
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
}
