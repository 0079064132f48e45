package io.thriftnio.pool;

import io.thriftnio.core.internal.NamedThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The evictor of a {@link SharedChannels} pool: every {@link PoolConfig#evictionInterval()} it
 * closes connections idle past {@link PoolConfig#idleTimeout()} and idle ones that fail validation,
 * then tops every endpoint that is up back to {@link
 * io.thriftnio.pool.IdleConnectionsConfig#minPerEndpoint()}. Validation runs outside the endpoint's
 * lock, on connections it reserved.
 */
final class ChannelEviction {
  // The pool's logger, as before the split: users set its level by that name.
  private static final Logger log = LoggerFactory.getLogger(SharedChannels.class);

  private final SharedChannels pool;
  private final PoolConfig config;
  private final ChannelCounters counters;
  private final ChannelCapacity capacity;
  private final ScheduledExecutorService evictor; // null when the interval is zero

  /** Starts the evictor thread, unless the eviction interval is zero. */
  ChannelEviction(
      SharedChannels pool, PoolConfig config, ChannelCounters counters, ChannelCapacity capacity) {
    this.pool = pool;
    this.config = config;
    this.counters = counters;
    this.capacity = capacity;
    if (config.idleConnections().evictionInterval().isZero()) {
      evictor = null;
    } else {
      ScheduledThreadPoolExecutor ex =
          new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("thrift-nio-pool-evictor"));
      ex.setRemoveOnCancelPolicy(true);
      long every = config.idleConnections().evictionInterval().toNanos();
      ex.scheduleWithFixedDelay(this::evict, every, every, TimeUnit.NANOSECONDS);
      evictor = ex;
    }
  }

  /** Stops the evictor thread, if started. */
  void stop() {
    if (evictor != null) {
      evictor.shutdownNow();
    }
  }

  /**
   * Closes connections idle past the idle timeout and idle ones that fail validation, then tops up
   * {@code minIdlePerEndpoint}.
   */
  void evict() {
    try {
      long now = System.nanoTime();
      long idleTimeout = config.idleConnections().timeout().toNanos();
      List<Conn> toClose = new ArrayList<>();
      for (EndpointChannels endpoint : pool.books.values()) {
        for (Conn c : endpoint.reserveIdle(now, idleTimeout, toClose)) {
          boolean invalid = !pool.valid(c); // outside the endpoint's lock: the user's code
          if (endpoint.endIdleCheck(c, invalid)) {
            counters.invalidated.increment();
            toClose.add(c);
          }
        }
      }
      capacity.closeAll(toClose);
      topUp();
    } catch (RuntimeException e) {
      log.warn("{}: eviction run failed", pool.name(), e);
    }
  }

  /**
   * Keeps {@link io.thriftnio.pool.IdleConnectionsConfig#minPerEndpoint()} connections open on
   * every endpoint that is up. A down endpoint is left to its probe; a failed connect marks it down
   * like any other.
   */
  private void topUp() {
    int minIdle = config.idleConnections().minPerEndpoint();
    for (EndpointChannels endpoint : pool.books.values()) {
      while (minIdle > 0
          && !pool.isClosed()
          && pool.isUp(endpoint.endpoint)
          && endpoint.reserveTopUp(minIdle, capacity::reserveTotal)) {
        try {
          pool.release(capacity.connect(endpoint, System.nanoTime(), false), null);
        } catch (TException | ConnectFailedException e) {
          break; // counted, and the endpoint marked down, in connect()
        }
      }
    }
  }
}
