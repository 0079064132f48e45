package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

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
}
