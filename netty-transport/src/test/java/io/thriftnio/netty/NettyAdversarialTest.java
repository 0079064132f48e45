package io.thriftnio.netty;

import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.AdversarialSuite;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ServerCell;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The adversarial suite on Netty servers, every buffer from a tracking allocator: both strategies
 * on NIO, and SAME_THREAD (the IO-thread path, where a transport's read, write and close behaviour
 * shows) on epoll and io_uring. The million-call case runs on NIO only (see {@link
 * NativeSupport.ManyCallsOnNioOnly}).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
@ExtendWith(NativeSupport.ManyCallsOnNioOnly.class)
class NettyAdversarialTest extends AdversarialSuite {

  @Parameter ServerCell<NettyThriftServer.Builder> cell;

  private final LeakTrackingAllocator allocator = new LeakTrackingAllocator();

  static Stream<ServerCell<NettyThriftServer.Builder>> cells() {
    return Cells.select(
        NettyAdversarialTest.class,
        List.of(
            NettyCells.nio(SAME_THREAD),
            NettyCells.nio(WORKER).asRepresentative(),
            NettyCells.on(NettyTransportType.EPOLL, SAME_THREAD),
            NettyCells.on(NettyTransportType.IO_URING, SAME_THREAD)));
  }

  @BeforeParameterizedClassInvocation
  static void cellRunsHere(ServerCell<?> cell) {
    cell.requirement().run();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return cell.newBuilder().allocator(allocator);
  }

  @Override
  protected IoStrategy strategy() {
    return cell.strategy();
  }

  @Override
  protected void assertNoLeaks() {
    allocator.assertAllReleased();
  }

  @Override
  protected long largestBufferAllocated() {
    return allocator.largestCapacity();
  }
}
