package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite: Netty server on io_uring, SAME_THREAD, this module's {@link
 * TNettyTransport} clients on io_uring event loops. Skipped, saying why, where io_uring does not
 * load.
 */
@Tag("native-transport")
class NettyIoUringSameThreadSyncTransportConformanceTest extends ConformanceSuite {
  @BeforeAll
  static void iouringLoadsHere() {
    NativeSupport.assumeTransport(NettyTransportType.IO_URING);
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().transport(NettyTransportType.IO_URING).ioThreads(2);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }

  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.syncTransport(NettyTransportType.IO_URING);
  }

  @Override
  @Test
  @Disabled(
      "io_uring only, intermittent: in about 1 run in 7 under load (kernel 6.18, Netty 4.2.18) a"
          + " connection that sent a truncated frame and then a FIN or a reset is still open after"
          + " 10 s; epoll and NIO pass every run. Open until the cause is found.")
  protected void survivesATruncatedFrameThenCloseOrReset() throws Exception {
    super.survivesATruncatedFrameThenCloseOrReset();
  }
}
