package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.AdversarialSuite;

/** The adversarial suite: Netty server, WORKER, every buffer tracked. */
class NettyWorkerAdversarialTest extends AdversarialSuite {
  private final LeakTrackingAllocator allocator = new LeakTrackingAllocator();

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().ioThreads(2).allocator(allocator);
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
