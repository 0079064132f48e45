package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ConnectionEventsSuite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The connection events suite: Netty server on epoll, WORKER (where a channel's close is seen
 * differently from NIO). Skipped, saying why, where epoll does not load.
 */
@Tag("native-transport")
class NettyEpollWorkerConnectionEventsTest extends ConnectionEventsSuite {
  @BeforeAll
  static void epollLoadsHere() {
    NativeSupport.assumeTransport(NettyTransportType.EPOLL);
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().transport(NettyTransportType.EPOLL);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }
}
