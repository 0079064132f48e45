package io.thriftnio.spring.boot;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.pool.PoolMetrics;
import io.thriftnio.pool.PoolStats;
import java.util.function.Supplier;

/**
 * Where the server's and the pools' meters go: nowhere ({@link #NONE}), or Micrometer when the
 * application has a {@code MeterRegistry} ({@code MicrometerBinding}).
 */
interface ThriftMeterBinding {

  ThriftMeterBinding NONE = new ThriftMeterBinding() {};

  /** Binds the server's counters, once it has started. */
  default void bindServer(ThriftServer server) {}

  /** The metrics a pool named {@code name} reports its events to. */
  default PoolMetrics poolMetrics(String name) {
    return PoolMetrics.NONE;
  }

  /** Binds a pool's gauges, once it is built. */
  default void bindPool(String name, Supplier<PoolStats> stats) {}
}
