package io.thriftnio.netty;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.WrongShapeSuite;

/** Clients of the wrong shape against Netty servers, with Netty's clients (issue 38). */
class NettyWrongShapeTest extends WrongShapeSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().ioThreads(1);
  }

  @Override
  protected ClientIo resources() {
    return NettyClientKinds.RESOURCES;
  }
}
