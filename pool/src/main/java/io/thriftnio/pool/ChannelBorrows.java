package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.thrift.TException;

/**
 * Borrowing a slot from a {@link SharedChannels} pool on the calling thread: from the chosen
 * endpoint's books, or from another endpoint's free connection while one of the pool owes a late
 * reply, connecting on a reservation of {@link ChannelCapacity}, from another endpoint's free
 * connection when the chosen one is full and may not connect, or waiting on the endpoint's lock
 * ({@link EndpointChannels#takeOrAwait}). No pool-wide lock: each step holds one endpoint's lock at
 * the most.
 */
final class ChannelBorrows {
  private final SharedChannels pool;
  private final PoolConfig config;
  private final PoolMetrics metrics;
  private final ChannelCounters counters;
  private final ChannelCapacity capacity;

  ChannelBorrows(
      SharedChannels pool,
      PoolConfig config,
      PoolMetrics metrics,
      ChannelCounters counters,
      ChannelCapacity capacity) {
    this.pool = pool;
    this.config = config;
    this.metrics = metrics;
    this.counters = counters;
    this.capacity = capacity;
  }

  /** A slot on an open connection of {@code endpoint} now, or {@code null}; never connects. */
  Conn tryFrom(EndpointChannels endpoint) throws TException {
    if (pool.isClosed()) {
      throw pool.closedException();
    }
    List<Conn> dead = new ArrayList<>();
    try {
      while (true) {
        Grant grant = endpoint.take(config.maxPerEndpoint(), () -> false, dead, false);
        if (grant == null) {
          return null;
        }
        if (grant.fresh && config.idleConnections().testOnBorrow() && !pool.valid(grant.conn)) {
          if (endpoint.release(grant.conn, true)) {
            counters.invalidated.increment();
            metrics.invalidated(endpoint.endpoint, null);
            dead.add(grant.conn);
          }
          continue;
        }
        counters.borrowed.increment();
        metrics.borrowed(endpoint.endpoint, Duration.ZERO);
        return grant.conn;
      }
    } finally {
      capacity.closeAll(dead);
    }
  }

  /**
   * Whether a connection of the pool owes the late reply of a timed-out call: then the balancers,
   * which count it as full, may send calls to an endpoint with no room while another has some.
   */
  boolean anyOwesLateReplies() {
    for (EndpointChannels e : pool.books.values()) {
      if (e.owesLateReplies()) {
        return true;
      }
    }
    return false;
  }

  /**
   * A free connection, owing no late reply, of another endpoint that is up (not {@code mine}, not
   * {@code avoid}), or {@code null}: for a call whose chosen endpoint has no free connection while
   * a connection of the pool owes the late reply of a timed-out call, taken rather than connecting,
   * so that a slow call costs neither waiting behind it nor a new connection while the pool has
   * room elsewhere; and for a call whose chosen endpoint is full and may not connect, taken rather
   * than waiting there for a release.
   */
  Conn elsewhere(EndpointChannels mine, InetSocketAddress avoid) throws TException {
    List<EndpointChannels> all = new ArrayList<>(pool.books.values());
    int n = all.size();
    int start = n < 2 ? 0 : ThreadLocalRandom.current().nextInt(n); // no herd on the first
    for (int i = 0; i < n; i++) {
      EndpointChannels other = all.get((start + i) % n);
      if (other != mine && !other.endpoint.equals(avoid) && pool.isUp(other.endpoint)) {
        Conn c = tryFrom(other);
        if (c != null) {
          return c;
        }
      }
    }
    return null;
  }

  /**
   * A connection with a slot taken for one call, connecting or waiting on the calling thread;
   * release it with {@link SharedChannels#release}.
   */
  Conn acquire() throws TException {
    pool.selector.budget().deposit();
    return pool.selector.borrow(
        pool.name(), endpoint -> acquireFrom(booksOf(endpoint), true), pool::gauges);
  }

  /** The books of a chosen endpoint; a connect failure if it left the source meanwhile. */
  EndpointChannels booksOf(EndpointState endpoint) throws ConnectFailedException {
    EndpointChannels books = pool.books.get(endpoint.address);
    if (books == null) {
      throw leftSource(endpoint.address);
    }
    return books;
  }

  private ConnectFailedException leftSource(InetSocketAddress endpoint) {
    return new ConnectFailedException(
        new PoolException(
            pool.name() + ": endpoint " + Names.endpoint(endpoint) + " left " + pool.source, null));
  }

  /**
   * Borrows on the calling thread. {@code countTimeout}: whether a timeout is the caller's (a
   * connector's timeout is none: the queue's own timer fails its waiters).
   */
  Conn acquireFrom(EndpointChannels endpoint, boolean countTimeout)
      throws TException, ConnectFailedException {
    InetSocketAddress ep = endpoint.endpoint;
    long start = System.nanoTime();
    long deadline = start + config.borrowTimeout().toNanos();
    List<Conn> dead = new ArrayList<>();
    Grant afterWait = null;
    try {
      while (true) {
        if (pool.isClosed()) {
          throw pool.closedException();
        }
        if (endpoint.isRetired()) {
          throw leftSource(ep); // it left while this call waited: another endpoint takes it
        }
        // A borrow for a down endpoint is its probe: it must reach that endpoint, or the selector
        // would take a connection elsewhere for news of it and bring it up unheard.
        boolean probing = !pool.isUp(ep);
        if (afterWait == null && !probing && anyOwesLateReplies()) {
          // Before connecting here: a free connection elsewhere that owes no late reply.
          Conn c = tryFrom(endpoint);
          c = c != null ? c : elsewhere(endpoint, null);
          if (c != null) {
            return c;
          }
        }
        Grant grant =
            afterWait != null
                ? afterWait
                : endpoint.take(config.maxPerEndpoint(), capacity::reserveTotal, dead);
        afterWait = null;
        if (grant == null && capacity.makeRoomElsewhere(endpoint, dead)) {
          continue;
        }
        if (grant != null && grant.conn == null) {
          return capacity.connect(endpoint, start, true);
        }
        if (grant != null) {
          if (grant.fresh && config.idleConnections().testOnBorrow() && !pool.valid(grant.conn)) {
            if (endpoint.release(grant.conn, true)) {
              counters.invalidated.increment();
              metrics.invalidated(ep, null);
              dead.add(grant.conn);
            }
            continue;
          }
          counters.borrowed.increment();
          metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
          return grant.conn;
        }
        Conn room = probing ? null : elsewhere(endpoint, null);
        if (room != null) {
          return room; // rather than wait here for a release while another endpoint has room
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          Duration waited = Duration.ofNanos(System.nanoTime() - start);
          if (countTimeout) {
            counters.timeouts.increment();
            metrics.borrowTimedOut(ep, waited);
          }
          throw new PoolTimeoutException(ep, waited, pool.stats(), pool.selector.lastDownFailure());
        }
        try {
          afterWait =
              endpoint.takeOrAwait(config.maxPerEndpoint(), capacity::reserveTotal, dead, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new PoolException(
              pool.name()
                  + ": interrupted while waiting for a connection to "
                  + Names.endpoint(ep)
                  + " ("
                  + pool.gauges()
                  + ")",
              e);
        }
      }
    } finally {
      capacity.closeAll(dead);
    }
  }
}
