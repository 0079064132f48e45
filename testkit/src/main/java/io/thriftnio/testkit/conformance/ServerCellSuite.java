package io.thriftnio.testkit.conformance;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

/**
 * The base of the suites that run once per {@link ServerCell} of a transport: the suite names its
 * {@link Matrix} ({@link Matrix.Of}), the transport's subclass names the transport's {@link
 * TransportCells} and nothing else:
 *
 * <pre>
 * &#64;ArgumentsSource(NettyCells.class)
 * class NettyCallPathTest extends CallPathSuite {}
 * </pre>
 *
 * Each run is named by its cell ({@link ServerCell#toString()}); a cell's requirement (a native
 * transport that must load) runs before its cases.
 */
@ParameterizedClass(name = "{0}")
public abstract class ServerCellSuite {

  @Parameter ServerCell<?> cell;

  @BeforeParameterizedClassInvocation
  static void cellRunsHere(ServerCell<?> cell) {
    cell.requirement().run();
  }

  /** The cell under test. */
  public final ServerCell<?> cell() {
    return cell;
  }

  /** A fresh builder of the server under test: the cell's, with its wire kinds. */
  protected ServerBuilder<?> newServerBuilder() {
    return cell.newBuilder();
  }

  /** The strategy under test: the cell's. */
  protected IoStrategy strategy() {
    return cell.strategy();
  }
}
