package io.thriftnio.netty;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.AdversarialSuite;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The adversarial suite on Netty servers ({@link NettyCells}), every buffer from a tracking
 * allocator. The million-call case runs on NIO only (see {@link NativeSupport.ManyCallsOnNioOnly}).
 */
@ArgumentsSource(NettyCells.class)
@ExtendWith(NativeSupport.ManyCallsOnNioOnly.class)
class NettyAdversarialTest extends AdversarialSuite {

  private final LeakTrackingAllocator allocator = new LeakTrackingAllocator();

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return ((NettyThriftServer.Builder) super.newServerBuilder()).allocator(allocator);
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
