package io.thriftnio.peer.drift;

import io.airlift.drift.annotations.ThriftField;
import io.airlift.drift.annotations.ThriftMethod;
import io.airlift.drift.annotations.ThriftService;

/**
 * The methods of the testkit's {@code BenchService} that the bench's scenarios call, as Drift
 * declares a service: the same service and method names, the same field ids, so that stock Thrift
 * clients and Drift's client see one wire format.
 */
@ThriftService("BenchService")
public interface DriftBench {

  /** {@code binary echo(1: binary payload)}: returns the payload. */
  @ThriftMethod
  byte[] echo(@ThriftField(1) byte[] payload);

  /** {@code void sleep(1: i32 millis)}: blocks the calling thread, Drift's event loop. */
  @ThriftMethod
  void sleep(@ThriftField(1) int millis);
}
