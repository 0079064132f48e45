package io.thriftnio.spring.boot;

import io.thriftnio.pool.PoolStats;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/** The server's and the pools' health. */
final class ThriftHealthIndicators {

  private ThriftHealthIndicators() {}

  /**
   * {@code thriftServer}: {@code UP} while serving, {@code OUT_OF_SERVICE} while draining, {@code
   * DOWN} before the start and once stopped; details: the state, the port, the services.
   */
  static HealthIndicator server(ThriftServerLifecycle server) {
    return () -> {
      ThriftServerLifecycle.State state = server.state();
      Status status =
          switch (state) {
            case SERVING -> Status.UP;
            case DRAINING -> Status.OUT_OF_SERVICE;
            default -> Status.DOWN;
          };
      Health.Builder h = Health.status(status).withDetail("state", state.name());
      server.localAddress().ifPresent(a -> h.withDetail("port", a.getPort()));
      return h.withDetail("services", server.services()).build();
    };
  }

  /**
   * {@code thriftClients}: per pool, each endpoint {@code UP}, {@code DOWN} (its last connect
   * failed) or {@code UNKNOWN} (not tried yet), and the pool's gauges. A pool is down when it has
   * no endpoint, or all of them are down; the indicator is {@code DOWN} when any pool is.
   */
  static HealthIndicator clients(ThriftPools pools) {
    return () -> {
      boolean allUp = true;
      Map<String, Object> details = new LinkedHashMap<>();
      for (ThriftPools.Handle pool : pools.all().values()) {
        Map<InetSocketAddress, EndpointStates.State> states =
            pool.states().of(pool.endpoints().get());
        boolean up = states.values().stream().anyMatch(s -> s != EndpointStates.State.DOWN);
        allUp &= up;
        Map<String, Object> endpoints = new LinkedHashMap<>();
        states.forEach((e, s) -> endpoints.put(e.getHostString() + ":" + e.getPort(), s.name()));
        PoolStats stats = pool.stats().get();
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("status", up ? Status.UP.getCode() : Status.DOWN.getCode());
        detail.put("type", pool.type());
        detail.put("endpoints", endpoints);
        detail.put("connections", stats.gauges());
        details.put(pool.name(), detail);
      }
      return (allUp ? Health.up() : Health.down()).withDetails(details).build();
    };
  }
}
