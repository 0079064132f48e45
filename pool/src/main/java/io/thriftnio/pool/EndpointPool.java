package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A commons-pool2 {@code GenericKeyedObjectPool} keyed by endpoint, with endpoint choice, connect
 * failure back-off and retry, typed errors that carry the pool state, and counters. Every pool in
 * this module lends exclusive connections through one of these; pool2 stays behind this class.
 *
 * <p>This class owns the pool's life (endpoint updates, close) and its shared {@link
 * EndpointPoolBooks books} (the pool2 pool, the selector, the connections lent now, the counters);
 * the work is done by {@link EndpointBorrows} (lending), {@link EndpointReturns} (giving back,
 * destroying) and {@link EndpointPoolFactory} (connecting, validating, closing), with {@link
 * Pool2Settings} mapping the configuration.
 *
 * <p>Locks: {@code updates} (here) makes endpoint updates one at a time and orders them with {@link
 * #close()}, so no update adds endpoints after the pool closed. The idle connections of endpoints
 * that left close after it is released: closing runs the {@link PoolMetrics} and the transport's
 * close listeners, which must not run under a lock of ours (a clear after the close finds nothing
 * idle). Nothing else in these classes locks: pool2 and the {@link EndpointSelector} keep their
 * own, the lent set is concurrent and the counters are {@code LongAdder}s.
 *
 * @param <T> the pooled connection
 */
final class EndpointPool<T> implements AutoCloseable, CallPolicy.Budget {
  private static final Logger log = LoggerFactory.getLogger(EndpointPool.class);

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
  private final Connections<T> connections;
  private final EndpointSelector selector;
  private final EndpointSource source;
  private final Object updates = new Object(); // one endpoint update at a time; see the javadoc
  private final GenericKeyedObjectPool<InetSocketAddress, T> pool;
  private final Set<T> lent = ConcurrentHashMap.newKeySet();
  private final EndpointPoolStats stats = new EndpointPoolStats();
  private final ConnectionAges<T> ages = new ConnectionAges<>();
  private final EndpointBorrows<T> borrows;
  private final EndpointReturns<T> returns;
  private volatile boolean closed;

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
    this.connections = connections;
    this.source = source;
    this.selector = new EndpointSelector(List.of(), config, this::activeOn, clock);
    selector.source(String.valueOf(source));
    this.pool =
        new GenericKeyedObjectPool<>(
            new EndpointPoolFactory<>(
                name, source, selector, connections, metrics, stats, this::closedUnderUs, ages),
            Pool2Settings.of(config));
    EndpointPoolBooks<T> books =
        new EndpointPoolBooks<>(
            this, name, pool, selector, lent, stats, metrics, connections, ages);
    this.borrows = new EndpointBorrows<>(books, config);
    this.returns = new EndpointReturns<>(books);
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
    List<EndpointState> left;
    synchronized (updates) {
      if (closed) {
        return;
      }
      left = selector.update(endpoints);
    }
    for (EndpointState e : left) {
      log.info("{}: endpoint {} left {}; draining it", name, Names.endpoint(e.address), source);
      // Idle connections close now, outside the lock (the metrics hear of each); lent ones when
      // they come back (release()).
      pool.clear(e.address);
    }
  }

  /** Lends a connection, choosing the endpoint; retries elsewhere only after connect failures. */
  public Borrowed<T> borrow() throws TException {
    return borrows.borrow();
  }

  /**
   * {@link #borrow()} that waits at most {@code maxWait} for a busy pool, when that is less than
   * the borrow timeout (a call's deadline is nearer).
   */
  public Borrowed<T> borrow(Duration maxWait) throws TException {
    return borrows.borrow(maxWait);
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

  /** The latest failure of an endpoint that is down, or {@code null}. */
  Throwable lastDownFailure() {
    return selector.lastDownFailure();
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
    returns.onFree(action);
  }

  /**
   * An idle connection lent now, on the calling thread, or {@code null} when none is idle: never
   * waits, never connects (the async pools' fast path).
   */
  public Borrowed<T> tryBorrowNow(
      InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
      throws TException {
    return borrows.tryBorrowNow(preferred, avoid, chosen);
  }

  /**
   * The borrow of a call's retry: not a new call for the budget (the retry was taken from it
   * already), and elsewhere than {@code avoid}, where the call failed, unless no other endpoint can
   * take it.
   */
  public Borrowed<T> borrowForRetry(InetSocketAddress avoid, Duration maxWait) throws TException {
    return borrows.borrowForRetry(avoid, maxWait);
  }

  /**
   * The borrow of a call refused "not run" by the endpoints of {@code refusedBy}: never one of
   * them, and not a new call for the budget, nor a retry taken from it (no handler ran).
   *
   * @throws PoolException as when no endpoint is available, if only those could take it
   */
  public Borrowed<T> borrowElsewhere(Collection<InetSocketAddress> refusedBy, Duration maxWait)
      throws TException {
    return borrows.borrowElsewhere(refusedBy, maxWait);
  }

  /**
   * {@link #borrow()} for an async pool's connector: tries {@code preferred} first when it is in
   * the set and up, and does not count a timeout (the waiting call's own timer does).
   */
  public Borrowed<T> borrow(InetSocketAddress preferred) throws TException {
    return borrows.borrow(preferred);
  }

  /** Counts a borrow that gave up after the borrow timeout outside this class (an async waiter). */
  public void countTimeout() {
    stats.timeouts.increment();
  }

  /**
   * Retires each connection opened from now on once it has lived {@code age} (jittered), when it is
   * given back; called by the owner before it lends any.
   */
  void maxConnectionAge(ConnectionAge age) {
    ages.age(age);
  }

  /** Gives a healthy connection back; one past its age is destroyed instead, counted as aged. */
  public void release(Borrowed<T> b) {
    returns.release(b);
  }

  /**
   * Closes a healthy connection between two calls because its server drains (a "not run" refusal
   * said so): not counted as invalidated.
   */
  public void retire(Borrowed<T> b) {
    returns.retire(b, false);
  }

  /** Gives back a connection that no call used: it does not count as borrowed. */
  public void giveBack(Borrowed<T> b) {
    returns.giveBack(b);
  }

  /** Destroys a connection whose call failed ({@code cause}) or that is unfit to reuse. */
  public void invalidate(Borrowed<T> b, Throwable cause) {
    returns.invalidate(b, cause);
  }

  /**
   * A call on {@code endpoint} ended, with {@code failure} or {@code null} for a reply: feeds
   * outlier ejection ({@link
   * io.thriftnio.pool.EndpointHealthConfig#ejectAfterConsecutiveFailures()}), and counts a "not
   * run" refusal; one saying the server drains takes the endpoint out ({@link
   * EndpointSelector#callEnded}) and closes its idle connections.
   */
  public void callEnded(InetSocketAddress endpoint, Throwable failure) {
    if (selector.callEnded(endpoint, failure, name)) {
      // Its server drains: the idle connections close now, the lent ones as they come back.
      pool.clear(endpoint);
    }
  }

  /** A connection closed by itself; the factory's callback (see {@link EndpointReturns}). */
  private void closedUnderUs(InetSocketAddress endpoint, T t) {
    returns.closedUnderUs(endpoint, t);
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
    return stats.snapshot(pool, selector);
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
}
