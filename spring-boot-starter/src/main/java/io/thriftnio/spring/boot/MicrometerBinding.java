package io.thriftnio.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.micrometer.PoolMeters;
import io.thriftnio.micrometer.ServerMeters;
import io.thriftnio.pool.PoolMetrics;
import io.thriftnio.pool.PoolStats;
import java.util.function.Supplier;

/**
 * The {@code thrift-nio-micrometer} meters in the application's registry: the server's tagged
 * {@code server=thrift}, each pool's tagged {@code pool=<name>}.
 */
final class MicrometerBinding implements ThriftMeterBinding {

  /** The {@code server} tag of the server's meters and of the method timers. */
  static final String SERVER_TAG = "thrift";

  private final MeterRegistry registry;

  MicrometerBinding(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void bindServer(ThriftServer server) {
    new ServerMeters(server, SERVER_TAG).bindTo(registry);
  }

  @Override
  public PoolMetrics poolMetrics(String name) {
    return new PoolMeters(registry, name);
  }

  @Override
  public void bindPool(String name, Supplier<PoolStats> stats) {
    new PoolMeters(registry, name).bindStats(stats).bindTo(registry);
  }
}
