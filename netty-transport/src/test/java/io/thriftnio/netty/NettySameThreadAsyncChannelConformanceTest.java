package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite: Netty server on NIO, SAME_THREAD, this module's {@link NettyThriftChannel}
 * clients.
 */
class NettySameThreadAsyncChannelConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().transport(NettyTransportType.NIO).ioThreads(2);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }

  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.asyncChannel();
  }
}
