package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.UnframedSuite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Unframed peers beyond the conformance suite: Netty server on Epoll, SAME_THREAD, where the native
 * transport's read and close behaviour shows. Skipped, saying why, where Epoll does not load.
 */
@Tag("native-transport")
class NettyEpollSameThreadUnframedTest extends UnframedSuite {
  @BeforeAll
  static void transportLoadsHere() {
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
}
