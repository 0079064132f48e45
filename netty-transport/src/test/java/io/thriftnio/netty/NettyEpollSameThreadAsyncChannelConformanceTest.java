package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The conformance suite: Netty server on epoll, SAME_THREAD, this module's {@link
 * NettyThriftChannel} clients on epoll event loops. Skipped, saying why, where epoll does not load.
 */
@Tag("native-transport")
class NettyEpollSameThreadAsyncChannelConformanceTest extends ConformanceSuite {
  @BeforeAll
  static void epollLoadsHere() {
    NativeSupport.assumeTransport(NettyTransportType.EPOLL);
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().transport(NettyTransportType.EPOLL).ioThreads(2);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }

  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.asyncChannel(NettyTransportType.EPOLL);
  }
}
