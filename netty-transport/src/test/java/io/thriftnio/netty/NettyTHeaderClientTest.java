package io.thriftnio.netty;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.THeaderClientSuite;

/** THeader clients: Netty on NIO, against a Netty server and raw THeader servers. */
class NettyTHeaderClientTest extends THeaderClientSuite {
  @Override
  protected ClientIo resources() {
    return NettyClientKinds.RESOURCES;
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().ioThreads(1).workerThreads(4);
  }
}
