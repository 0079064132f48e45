package io.thriftnio.pool.internal;

import io.thriftnio.pool.EndpointSource;
import io.thriftnio.pool.PoolClosedException;
import io.thriftnio.pool.PoolConfig;
import io.thriftnio.pool.PoolException;
import io.thriftnio.pool.PoolMetrics;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.PoolTimeoutException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.commons.pool2.BaseKeyedPooledObjectFactory;
import org.apache.commons.pool2.DestroyMode;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.commons.pool2.impl.GenericKeyedObjectPoolConfig;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A commons-pool2 {@code GenericKeyedObjectPool} keyed by endpoint, with endpoint choice, connect
 * failure back-off and retry, typed errors that carry the pool state, and counters. Every pool in
 * this module lends exclusive connections through one of these; pool2 stays behind this class.
 *
 * @param <T> the pooled connection
 */
public final class EndpointPool<T> implements AutoCloseable, CallPolicy.Budget {
  private static final Logger log = LoggerFactory.getLogger(EndpointPool.class);

  /** Idle eviction off, in pool2's terms: an idle time no connection reaches. */
  private static final Duration FOREVER = Duration.ofMillis(Long.MAX_VALUE);

  /** How connections are made, checked and closed. */
  public interface Connections<T> {
    /** Opens a connection; any exception is a connect failure. */
    T open(InetSocketAddress endpoint) throws Exception;

    /** Full validation of an idle connection; never throws. */
    boolean validate(T connection);

    /** Closes quietly; idempotent. */
    void close(T connection);

    /**
     * Runs {@code action} once when {@code connection} closes, if the transport can tell (see
     * {@link io.thriftnio.core.CloseAware}); at once if it is closed already. The default does
     * nothing: such a connection is found closed when validated.
     */
    default void whenClosed(T connection, Runnable action) {}
  }

  /** A lent connection and where it goes. */
  public static final class Borrowed<T> {
    public final InetSocketAddress endpoint;
    public final T connection;

    Borrowed(InetSocketAddress endpoint, T connection) {
      this.endpoint = endpoint;
      this.connection = connection;
    }
  }

  private final String name;
  private final PoolConfig config;
  private final PoolMetrics metrics;
  private final Connections<T> connections;
  private final EndpointSelector selector;
  private final EndpointSource source;
  private final Object updates = new Object(); // one endpoint update at a time
  private final GenericKeyedObjectPool<InetSocketAddress, T> pool;
  private final Set<T> lent = ConcurrentHashMap.newKeySet();
  private final LongAdder borrowed = new LongAdder();
  private final LongAdder created = new LongAdder();
  private final LongAdder destroyed = new LongAdder();
  private final LongAdder invalidated = new LongAdder();
  private final LongAdder timeouts = new LongAdder();
  private final LongAdder connectFailures = new LongAdder();
  private volatile boolean closed;
  private volatile Runnable onFree = () -> {};

  /**
   * Set while a borrow may only take an idle connection: the factory then refuses to connect, so
   * that pool2's borrow returns at once.
   */
  private static final ThreadLocal<Boolean> idleOnly = new ThreadLocal<>();

  /** The factory's refusal while {@link #idleOnly} is set; no stack trace, it is not an error. */
  private static final class WouldConnect extends Exception {
    private static final long serialVersionUID = 1L;

    WouldConnect() {
      super("a connect is needed", null, false, false);
    }
  }

  public EndpointPool(
      String name,
      List<InetSocketAddress> endpoints,
      PoolConfig config,
      PoolMetrics metrics,
      Connections<T> connections) {
    this(name, EndpointSource.of(endpoints), config, metrics, connections, System::nanoTime);
  }

  /**
   * A pool that follows {@code source}: started here, closed by {@link #close()}. An endpoint that
   * leaves is drained: its idle connections close now, its lent ones when they come back, and no
   * new connection is opened to it.
   */
  public EndpointPool(
      String name,
      EndpointSource source,
      PoolConfig config,
      PoolMetrics metrics,
      Connections<T> connections) {
    this(name, source, config, metrics, connections, System::nanoTime);
  }

  /** With the clock that times endpoint back-offs; tests drive it by hand. */
  EndpointPool(
      String name,
      List<InetSocketAddress> endpoints,
      PoolConfig config,
      PoolMetrics metrics,
      Connections<T> connections,
      LongSupplier clock) {
    this(name, EndpointSource.of(endpoints), config, metrics, connections, clock);
  }

  private EndpointPool(
      String name,
      EndpointSource source,
      PoolConfig config,
      PoolMetrics metrics,
      Connections<T> connections,
      LongSupplier clock) {
    this.name = name;
    this.config = config;
    this.metrics = metrics;
    this.connections = connections;
    this.source = source;
    this.selector = new EndpointSelector(List.of(), config, this::activeOn, clock);
    selector.source(String.valueOf(source));
    this.pool = new GenericKeyedObjectPool<>(new Factory(), pool2Config(config));
    try {
      source.start(this::endpointsChanged);
    } catch (RuntimeException | Error e) {
      pool.close();
      source.close();
      throw e;
    }
  }

  /** The source published: endpoints that left are drained (idle connections closed now). */
  private void endpointsChanged(List<InetSocketAddress> endpoints) {
    synchronized (updates) {
      if (closed) {
        return;
      }
      List<EndpointState> left = selector.update(endpoints);
      for (EndpointState e : left) {
        log.info("{}: endpoint {} left {}; draining it", name, Names.endpoint(e.address), source);
        // Idle connections close now; lent ones when they come back (release()).
        pool.clear(e.address);
      }
    }
  }

  private static <T> GenericKeyedObjectPoolConfig<T> pool2Config(PoolConfig config) {
    GenericKeyedObjectPoolConfig<T> c = new GenericKeyedObjectPoolConfig<>();
    c.setMaxTotal(config.maxTotal());
    c.setMaxTotalPerKey(config.maxPerEndpoint());
    c.setMaxIdlePerKey(config.maxIdlePerEndpoint());
    c.setMinIdlePerKey(config.idleConnections().minPerEndpoint());
    c.setBlockWhenExhausted(!config.borrowTimeout().isZero());
    c.setMaxWait(config.borrowTimeout());
    c.setTestOnCreate(false);
    c.setTestOnBorrow(config.idleConnections().testOnBorrow());
    c.setTestOnReturn(false); // each pool checks for unread bytes itself; cheaper than a peek
    c.setTestWhileIdle(true);
    c.setMinEvictableIdleDuration(
        config.idleConnections().timeout().isZero() ? FOREVER : config.idleConnections().timeout());
    c.setTimeBetweenEvictionRuns(
        config.idleConnections().evictionInterval().isZero()
            ? Duration.ofMillis(-1)
            : config.idleConnections().evictionInterval());
    c.setNumTestsPerEvictionRun(-1); // every idle connection, each run
    // Most recently used first: busy connections stay warm, surplus ones age out.
    c.setLifo(true);
    // Waiters served in arrival order: under a burst, no borrower starves into a timeout.
    c.setFairness(true);
    c.setJmxEnabled(config.jmxName() != null);
    if (config.jmxName() != null) {
      c.setJmxNamePrefix(config.jmxName());
    }
    return c;
  }

  /** Lends a connection, choosing the endpoint; retries elsewhere only after connect failures. */
  public Borrowed<T> borrow() throws TException {
    if (Thread.currentThread().isInterrupted()) {
      // An interrupted thread would close the channels it touches (ClosedByInterruptException)
      // and take a refused connect for a dead endpoint. Fail now; the flag stays set.
      throw new PoolException(
          name + ": interrupted before borrowing (" + stats().gauges() + ")",
          new InterruptedException());
    }
    callStarted();
    return selector.borrow(
        name, e -> borrowFrom(e, true, config.borrowTimeout()), () -> stats().gauges());
  }

  /**
   * {@link #borrow()} that waits at most {@code maxWait} for a busy pool, when that is less than
   * the borrow timeout (a call's deadline is nearer).
   */
  public Borrowed<T> borrow(Duration maxWait) throws TException {
    if (Thread.currentThread().isInterrupted()) {
      throw new PoolException(
          name + ": interrupted before borrowing (" + stats().gauges() + ")",
          new InterruptedException());
    }
    callStarted();
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrow(name, e -> borrowFrom(e, true, wait), () -> stats().gauges());
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
  }

  /** A call starts: it adds to the retry budget. {@link #borrow()} counts its own. */
  public void callStarted() {
    selector.budget().deposit();
  }

  /**
   * Takes one retry of a call from the retry budget: {@code false} when it is spent (counted in
   * {@link PoolStats#retriesRefused()}).
   */
  @Override
  public boolean tryRetry() {
    return selector.budget().tryWithdraw();
  }

  /** What a call's error says when its retry was refused: the budget and the pool state. */
  @Override
  public String retryRefused() {
    return selector.exhausted(stats().gauges());
  }

  /**
   * Runs {@code action} after a connection comes back or is destroyed, on the thread that gave it
   * back: the async pools serve their waiting calls from it. Set once, before the pool is shared.
   */
  public void onFree(Runnable action) {
    this.onFree = action;
  }

  /**
   * An idle connection lent now, on the calling thread, or {@code null} when none is idle: never
   * waits, never connects (the async pools' fast path).
   */
  public Borrowed<T> tryBorrowNow(
      InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
      throws TException {
    if (closed) {
      throw closedException();
    }
    return selector.borrow(name, this::tryIdle, () -> stats().gauges(), preferred, avoid, chosen);
  }

  /**
   * The borrow of a call's retry: not a new call for the budget (the retry was taken from it
   * already), and elsewhere than {@code avoid}, where the call failed, unless no other endpoint can
   * take it.
   */
  public Borrowed<T> borrowForRetry(InetSocketAddress avoid, Duration maxWait) throws TException {
    if (Thread.currentThread().isInterrupted()) {
      throw new PoolException(
          name + ": interrupted before borrowing (" + stats().gauges() + ")",
          new InterruptedException());
    }
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrow(
        name, e -> borrowFrom(e, true, wait), () -> stats().gauges(), null, avoid, null);
  }

  /**
   * {@link #borrow()} for an async pool's connector: tries {@code preferred} first when it is in
   * the set and up, and does not count a timeout (the waiting call's own timer does).
   */
  public Borrowed<T> borrow(InetSocketAddress preferred) throws TException {
    if (Thread.currentThread().isInterrupted()) {
      throw new PoolException(
          name + ": interrupted before borrowing (" + stats().gauges() + ")",
          new InterruptedException());
    }
    return selector.borrow(
        name,
        e -> borrowFrom(e, false, config.borrowTimeout()),
        () -> stats().gauges(),
        preferred,
        null);
  }

  private Borrowed<T> tryIdle(EndpointState endpoint) throws TException {
    if (pool.getNumIdle(endpoint.address) == 0) {
      return null;
    }
    T t;
    idleOnly.set(Boolean.TRUE);
    try {
      // One nanosecond: pool2 reads a zero wait as "no limit" in one of its paths.
      t = pool.borrowObject(endpoint.address, Duration.ofNanos(1));
    } catch (WouldConnect | NoSuchElementException e) {
      return null; // none idle after all (taken meanwhile, or failed validation and destroyed)
    } catch (IllegalStateException e) {
      if (closed || pool.isClosed()) {
        throw closedException();
      }
      throw new PoolException(name + ": borrow failed: " + e.getMessage(), e);
    } catch (TException | RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new PoolException(name + ": borrow failed: " + e, e);
    } finally {
      idleOnly.remove();
    }
    return lend(endpoint, t, System.nanoTime());
  }

  /** Counts a borrow that gave up after the borrow timeout outside this class (an async waiter). */
  public void countTimeout() {
    timeouts.increment();
  }

  /** {@code countTimeout}: whether a timeout is the caller's (an async connector's is not). */
  private Borrowed<T> borrowFrom(EndpointState endpoint, boolean countTimeout, Duration wait)
      throws TException, ConnectFailedException {
    if (closed) {
      throw closedException();
    }
    long start = System.nanoTime();
    T t;
    try {
      // One nanosecond at least: pool2 reads a zero wait as "no limit" in one of its paths.
      t =
          pool.borrowObject(
              endpoint.address,
              wait.isZero() && !config.borrowTimeout().isZero() ? Duration.ofNanos(1) : wait);
    } catch (ConnectFailedException f) {
      // Marked down in create(); nothing was written, so another endpoint may take the call.
      throw f;
    } catch (NoSuchElementException e) {
      if (closed) {
        throw closedException();
      }
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      String message = String.valueOf(e.getMessage());
      if (e.getCause() != null || message.startsWith("Unable to")) {
        // pool2 words it "Unable to validate/activate object": a fresh connection failed its
        // check, which is no timeout. Idle ones that fail are replaced without a word.
        throw new PoolException(
            name
                + ": new connection to "
                + Names.endpoint(endpoint.address)
                + " failed validation ("
                + stats().gauges()
                + ")",
            e.getCause());
      }
      if (countTimeout) {
        timeouts.increment();
        metrics.borrowTimedOut(endpoint.address, waited);
      }
      throw new PoolTimeoutException(endpoint.address, waited, stats());
    } catch (InterruptedException e) {
      if (closed) {
        // close() interrupts the borrowers it releases; that interrupt is the pool's own.
        throw closedException();
      }
      Thread.currentThread().interrupt();
      throw new PoolException(
          name
              + ": interrupted while waiting for a connection to "
              + Names.endpoint(endpoint.address)
              + " ("
              + stats().gauges()
              + ")",
          e);
    } catch (IllegalStateException e) {
      if (closed || pool.isClosed()) {
        throw closedException();
      }
      throw new PoolException(name + ": borrow failed: " + e.getMessage(), e);
    } catch (TException | RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new PoolException(name + ": borrow failed: " + e, e);
    }
    return lend(endpoint, t, start);
  }

  private Borrowed<T> lend(EndpointState endpoint, T t, long start) throws TException {
    lent.add(t);
    if (closed) {
      // close() ran while this borrow completed: the connection is not lent after all.
      lent.remove(t);
      try {
        pool.invalidateObject(endpoint.address, t, DestroyMode.NORMAL);
      } catch (Exception e) {
        connections.close(t);
      }
      throw closedException();
    }
    borrowed.increment();
    metrics.borrowed(endpoint.address, Duration.ofNanos(System.nanoTime() - start));
    return new Borrowed<>(endpoint.address, t);
  }

  /** Gives a healthy connection back. */
  public void release(Borrowed<T> b) {
    lent.remove(b.connection);
    try {
      pool.returnObject(b.endpoint, b.connection);
    } catch (RuntimeException e) {
      log.warn("{}: could not return a connection to {}", name, Names.endpoint(b.endpoint), e);
      connections.close(b.connection);
    }
    if (!selector.contains(b.endpoint)) {
      // The endpoint left: the connection is closed unless a borrower waiting for this endpoint
      // took it. Checked after the return, so an update racing with it cannot leave it idle.
      pool.clear(b.endpoint);
    }
    onFree.run();
  }

  /** Gives back a connection that no call used: it does not count as borrowed. */
  public void giveBack(Borrowed<T> b) {
    borrowed.decrement();
    release(b);
  }

  /** Destroys a connection whose call failed ({@code cause}) or that is unfit to reuse. */
  public void invalidate(Borrowed<T> b, Throwable cause) {
    lent.remove(b.connection);
    invalidated.increment();
    metrics.invalidated(b.endpoint, cause);
    try {
      pool.invalidateObject(b.endpoint, b.connection, DestroyMode.NORMAL);
    } catch (Exception e) {
      log.warn("{}: could not destroy a connection to {}", name, Names.endpoint(b.endpoint), e);
      connections.close(b.connection);
    }
    onFree.run();
  }

  /**
   * A call on {@code endpoint} ended, with {@code failure} or {@code null} for a reply: feeds
   * outlier ejection ({@link
   * io.thriftnio.pool.EndpointHealthConfig#ejectAfterConsecutiveFailures()}).
   */
  public void callEnded(InetSocketAddress endpoint, Throwable failure) {
    selector.callEnded(endpoint, failure, name);
  }

  /**
   * A connection closed by itself (the peer closed or reset it, a timeout): if idle, it leaves the
   * pool now, before a borrow finds it. A lent one is left to its borrower, whose call fails and
   * destroys it.
   */
  private void closedUnderUs(InetSocketAddress endpoint, T t) {
    if (closed || lent.contains(t)) {
      return;
    }
    try {
      pool.invalidateObject(endpoint, t, DestroyMode.NORMAL);
    } catch (IllegalStateException e) {
      return; // not in the pool any more: destroyed already (this close was the pool's own)
    } catch (Exception e) {
      log.warn("{}: could not drop a closed connection to {}", name, Names.endpoint(endpoint), e);
      return;
    }
    invalidated.increment();
    metrics.invalidated(endpoint, null);
    onFree.run();
  }

  /** The pool's configuration. */
  public PoolConfig config() {
    return config;
  }

  /** Connections lent out now to {@code endpoint}. */
  public int activeOn(InetSocketAddress endpoint) {
    return pool.getNumActive(endpoint);
  }

  /** The endpoints now, in the source's order. */
  public List<InetSocketAddress> endpoints() {
    List<InetSocketAddress> list = new ArrayList<>();
    for (EndpointState e : selector.all()) {
      list.add(e.address);
    }
    return list;
  }

  /** The up/down state of one endpoint; for tests. */
  EndpointState state(InetSocketAddress endpoint) {
    return selector.state(endpoint);
  }

  public PoolStats stats() {
    // commons-pool2 computes getNumActive() as its total minus a second reading of the idle count,
    // so active + idle read one after the other drifted above maxTotal under load (694 with a
    // maximum of 500 in a soak run). The total comes from this pool's own books instead, created
    // read before destroyed: it is then never above the true count at the first reading.
    long opened = created.sum();
    long closedSoFar = destroyed.sum();
    int total = (int) Math.max(0, opened - closedSoFar);
    int idle = Math.min(pool.getNumIdle(), total);
    int active = total - idle;
    return new PoolStats(
        total,
        active,
        idle,
        pool.getNumWaiters(),
        borrowed.sum(),
        created.sum(),
        destroyed.sum(),
        invalidated.sum(),
        timeouts.sum(),
        connectFailures.sum(),
        selector.budget().retried(),
        selector.budget().refused(),
        selector.ejections());
  }

  public boolean isClosed() {
    return closed;
  }

  public PoolClosedException closedException() {
    return new PoolClosedException(name + " is closed (" + stats().gauges() + ")");
  }

  /**
   * Closes every idle connection, fails waiting borrowers with {@link PoolClosedException}, and
   * closes lent connections under their users (their calls fail; their return then only counts
   * them). Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    synchronized (updates) {
      closed = true;
    }
    try {
      source.close();
    } catch (RuntimeException e) {
      log.warn("{}: closing {} threw", name, source, e);
    }
    pool.close();
    for (T t : lent) {
      connections.close(t);
    }
  }

  private final class Factory extends BaseKeyedPooledObjectFactory<InetSocketAddress, T> {
    @Override
    public T create(InetSocketAddress endpoint) throws ConnectFailedException, WouldConnect {
      if (idleOnly.get() != null) {
        throw new WouldConnect();
      }
      if (!selector.contains(endpoint)) {
        // It left the source between the choice and the connect: the borrow goes elsewhere.
        throw new ConnectFailedException(
            new PoolException(
                name + ": endpoint " + Names.endpoint(endpoint) + " left " + source, null));
      }
      T t;
      try {
        t = connections.open(endpoint);
      } catch (Exception | Error e) {
        connectFailures.increment();
        metrics.connectFailed(endpoint, e);
        EndpointState s = selector.state(endpoint);
        if (s != null && !Thread.currentThread().isInterrupted()) {
          // An interrupt aborts a connect (ClosedByInterruptException); that says nothing about
          // the endpoint, so it is not marked down for it.
          s.connectFailed(e);
        }
        throw new ConnectFailedException(e);
      }
      created.increment();
      metrics.created(endpoint);
      connections.whenClosed(t, () -> closedUnderUs(endpoint, t));
      return t;
    }

    @Override
    public PooledObject<T> wrap(T value) {
      return new DefaultPooledObject<>(value);
    }

    @Override
    public boolean validateObject(InetSocketAddress endpoint, PooledObject<T> p) {
      boolean ok;
      try {
        ok = connections.validate(p.getObject());
      } catch (RuntimeException e) {
        log.warn("{}: validation of a connection to {} threw", name, Names.endpoint(endpoint), e);
        ok = false;
      }
      if (!ok) {
        invalidated.increment();
        metrics.invalidated(endpoint, null);
      }
      return ok;
    }

    @Override
    public void destroyObject(InetSocketAddress endpoint, PooledObject<T> p, DestroyMode mode) {
      try {
        connections.close(p.getObject());
      } catch (RuntimeException e) {
        log.warn("{}: closing a connection to {} threw", name, Names.endpoint(endpoint), e);
      }
      destroyed.increment();
      metrics.destroyed(endpoint);
    }
  }
}
