package io.thriftnio.testkit.conformance;

import io.thriftnio.testkit.gen.BenchService;

/** One client connection to a {@code BenchService} server. */
public interface BenchConnection extends AutoCloseable {

  /** Calls over this connection; blocking, one call at a time from one thread. */
  BenchService.Iface iface();

  /** Closes the connection. Idempotent. */
  @Override
  void close();
}
