package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool-wide connection count of a {@link SharedChannels} pool against {@link
 * PoolConfig#maxTotal()}: a connection is opened on a reservation of it, closing one frees its
 * place (and wakes those waiting for room), and at the limit room is made by closing another
 * endpoint's oldest idle connection. The count is an atomic, so no endpoint's lock is held across
 * endpoints.
 */
final class ChannelCapacity {
  // The pool's logger, as before the split: users set its level by that name.
  private static final Logger log = LoggerFactory.getLogger(SharedChannels.class);

  private final SharedChannels pool;
  private final PoolConfig config;
  private final PoolMetrics metrics;
  private final MultiplexedPool.Opener opener;
  private final ChannelCounters counters;
  private final AtomicInteger total = new AtomicInteger(); // open + connecting, every endpoint

  ChannelCapacity(
      SharedChannels pool,
      PoolConfig config,
      PoolMetrics metrics,
      MultiplexedPool.Opener opener,
      ChannelCounters counters) {
    this.pool = pool;
    this.config = config;
    this.metrics = metrics;
    this.opener = opener;
    this.counters = counters;
  }

  /** Takes one place under {@code maxTotal}; {@code false} at the limit. */
  boolean reserveTotal() {
    while (true) {
      int n = total.get();
      if (n >= config.maxTotal()) {
        return false;
      }
      if (total.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** At maxTotal: makes room by taking the oldest idle connection of another endpoint. */
  boolean makeRoomElsewhere(EndpointChannels mine, List<Conn> dead) {
    if (total.get() < config.maxTotal()) {
      return false;
    }
    for (EndpointChannels other : pool.books.values()) {
      if (other != mine) {
        Conn c = other.removeOldestIdle();
        if (c != null) {
          closeOne(c); // frees its place in total before the retry
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Connects on a reservation; the connection carries one call, the caller's or, to top up, none
   * yet.
   */
  Conn connect(EndpointChannels endpoint, long start, boolean lend)
      throws TException, ConnectFailedException {
    InetSocketAddress ep = endpoint.endpoint;
    ThriftChannel channel;
    try {
      channel = opener.connect(ep);
      if (channel == null || !channel.isOpen()) {
        throw new TTransportException(
            TTransportException.NOT_OPEN,
            "channel factory gave a closed channel to " + Names.endpoint(ep));
      }
    } catch (Exception | Error e) {
      total.decrementAndGet();
      endpoint.connectFailed();
      pool.forgetIfDrained(endpoint);
      counters.connectFailures.increment();
      metrics.connectFailed(ep, e);
      EndpointState state = pool.state(ep);
      if (state != null && !Thread.currentThread().isInterrupted()) {
        // An interrupted connect says nothing about the endpoint.
        state.connectFailed(e);
      }
      throw new ConnectFailedException(e);
    }
    counters.created.increment();
    metrics.created(ep);
    Conn c = endpoint.connected(channel, pool.age().lifetimeNanos());
    channel.whenClosed(() -> pool.closedUnderUs(c));
    if (pool.isClosed()) {
      // close() ran while this connect completed: the connection is not lent after all.
      if (endpoint.release(c, true)) {
        closeOne(c);
      }
      throw pool.closedException();
    }
    if (lend) {
      counters.borrowed.increment();
      metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
    }
    return c;
  }

  /** Closes each connection of {@code list}, already off its endpoint's books, and clears it. */
  void closeAll(List<Conn> list) {
    for (Conn c : list) {
      closeOne(c);
    }
    list.clear();
  }

  /** Closes a connection already off its endpoint's books, and frees its place in the total. */
  void closeOne(Conn c) {
    try {
      c.channel.close();
    } catch (RuntimeException e) {
      log.warn("{}: closing a channel to {} threw", pool.name(), Names.endpoint(c.endpoint), e);
    }
    total.decrementAndGet();
    counters.destroyed.increment();
    if (c.aged) {
      counters.aged.increment();
    }
    metrics.destroyed(c.endpoint);
    // A caller waiting on another endpoint for room under maxTotal may go on now.
    for (EndpointChannels e : pool.books.values()) {
      e.wakeAll();
    }
    pool.dispatch(); // room to connect for a waiter
  }
}
