package io.thriftnio.pool.internal;

import io.thriftnio.pool.Balancer;
import io.thriftnio.pool.PoolConfig;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

/** Picks the endpoint of the next borrow: round-robin or least active, skipping those down. */
final class EndpointSelector {
  private final List<EndpointState> endpoints;
  private final Map<InetSocketAddress, EndpointState> byAddress = new HashMap<>();
  private final Balancer balancer;
  private final ToIntFunction<InetSocketAddress> active;
  private final AtomicInteger next = new AtomicInteger();

  EndpointSelector(
      List<InetSocketAddress> addresses, PoolConfig config, ToIntFunction<InetSocketAddress> active) {
    List<EndpointState> list = new ArrayList<>();
    for (InetSocketAddress a : new LinkedHashSet<>(addresses)) {
      EndpointState s = new EndpointState(a, config.endpointBackoff(), config.maxEndpointBackoff());
      list.add(s);
      byAddress.put(a, s);
    }
    this.endpoints = Collections.unmodifiableList(list);
    this.balancer = config.balancer();
    this.active = active;
  }

  List<EndpointState> all() {
    return endpoints;
  }

  EndpointState state(InetSocketAddress address) {
    return byAddress.get(address);
  }

  /**
   * The endpoint to borrow from, not in {@code exclude}; {@code null} when every candidate is down
   * and still backing off (or being probed by another borrower).
   */
  EndpointState select(List<EndpointState> exclude) {
    int n = endpoints.size();
    int start = n == 1 ? 0 : Math.floorMod(next.getAndIncrement(), n);
    long now = System.nanoTime();
    if (balancer == Balancer.LEAST_ACTIVE && n > 1) {
      EndpointState best = null;
      int bestActive = Integer.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        EndpointState e = endpoints.get((start + i) % n);
        if (e.isUp() && (exclude == null || !exclude.contains(e))) {
          int a = active.applyAsInt(e.address);
          if (a < bestActive) {
            best = e;
            bestActive = a;
          }
        }
      }
      if (best != null) {
        return best;
      }
    }
    for (int i = 0; i < n; i++) {
      EndpointState e = endpoints.get((start + i) % n);
      if ((exclude == null || !exclude.contains(e)) && e.tryAcquire(now)) {
        return e;
      }
    }
    return null;
  }

  String describeDown() {
    long now = System.nanoTime();
    StringBuilder sb = new StringBuilder();
    for (EndpointState e : endpoints) {
      if (!e.isUp()) {
        sb.append(sb.length() == 0 ? "" : "; ").append(e.describeDown(now));
      }
    }
    return sb.toString();
  }
}
