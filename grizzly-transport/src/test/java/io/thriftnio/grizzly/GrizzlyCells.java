package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.testkit.conformance.ServerCell;

/** The Grizzly servers of this module's test matrices; Grizzly runs on NIO alone. */
final class GrizzlyCells {

  private GrizzlyCells() {}

  /** A server with the builder's defaults. */
  static ServerCell<GrizzlyThriftServer.Builder> defaults(IoStrategy strategy) {
    return ServerCell.of("grizzly", "nio", GrizzlyThriftServer::builder, strategy);
  }

  /** A server with two selector threads. */
  static ServerCell<GrizzlyThriftServer.Builder> twoIoThreads(IoStrategy strategy) {
    return ServerCell.of(
        "grizzly", "nio", () -> GrizzlyThriftServer.builder().ioThreads(2), strategy);
  }
}
