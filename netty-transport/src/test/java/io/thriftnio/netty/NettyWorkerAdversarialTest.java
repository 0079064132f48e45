package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.AdversarialSuite;

/** The adversarial suite: Netty server on NIO, WORKER, every buffer tracked. */
class NettyWorkerAdversarialTest extends AdversarialSuite {
  private final LeakTrackingAllocator allocator = new LeakTrackingAllocator();

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder()
        .transport(NettyTransportType.NIO)
        .ioThreads(2)
        .allocator(allocator);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
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
