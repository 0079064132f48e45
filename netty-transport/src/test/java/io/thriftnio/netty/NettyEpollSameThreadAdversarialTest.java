package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.AdversarialSuite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The adversarial suite: Netty server on epoll, SAME_THREAD (the IO-thread path, where the
 * transport's read, write and close behaviour shows), every buffer tracked. Skipped, saying why,
 * where epoll does not load. The million-call case runs on NIO only (see {@link
 * NativeSupport.MillionCallsOnNioOnly}).
 */
@ExtendWith(NativeSupport.MillionCallsOnNioOnly.class)
@Tag("native-transport")
class NettyEpollSameThreadAdversarialTest extends AdversarialSuite {
  private final LeakTrackingAllocator allocator = new LeakTrackingAllocator();

  @BeforeAll
  static void epollLoadsHere() {
    NativeSupport.assumeTransport(NettyTransportType.EPOLL);
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder()
        .transport(NettyTransportType.EPOLL)
        .ioThreads(2)
        .allocator(allocator);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
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
