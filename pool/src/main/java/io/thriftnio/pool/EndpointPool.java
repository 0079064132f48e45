package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.commons.pool2.DestroyMode;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A commons-pool2 {@code GenericKeyedObjectPool} keyed by endpoint, with endpoint choice, connect
 * failure back-off and retry, typed errors that carry the pool state, and counters. Every pool in
 * this module lends exclusive connections through one of these; pool2 stays behind this class.
 *
 * <p>This class is the one owner of the pool's state: its life (endpoint updates, close), the
 * connections lent now, how they are lent (the endpoint chosen by the {@link EndpointSelector},
 * then a connection from pool2 for that endpoint, waiting up to the borrow timeout or less for a
 * call whose deadline is nearer, or only an idle one for the async pools' fast path; pool2's
 * failures become typed errors that carry the pool state) and how they leave their borrowers (given
 * back healthy, retired past their age or for a draining server, destroyed after a failed call,
 * dropped while idle when they close by themselves; each then runs the {@link #onFree(Runnable)}
 * action, from which the async pools serve their waiting calls). Its collaborators hold their own
 * state: pool2's object factory {@link EndpointPoolFactory} (connecting, validating, closing), the
 * counters {@link EndpointPoolStats}, each connection's age {@link ConnectionAges}; {@link
 * Pool2Settings} maps the configuration.
 *
 * <p>Locks: {@code updates} (here) makes endpoint updates one at a time and orders them with {@link
 * #close()}, so no update adds endpoints after the pool closed. The idle connections of endpoints
 * that left close after it is released: closing runs the {@link PoolMetrics} and the transport's
 * close listeners, which must not run under a lock of ours (a clear after the close finds nothing
 * idle). Nothing else here locks: pool2 and the {@link EndpointSelector} keep their own, the lent
 * set is concurrent and the counters are {@code LongAdder}s.
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
     * Runs {@code action} once when {@code connection} closes, if the transport can tell (this
     * library's TLS transports can); at once if it is closed already. The default does nothing:
     * such a connection is found closed when validated.
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
  private final PoolMetrics metrics;
  private volatile Runnable onFree = () -> {};
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

  /**
   * With the clock that times endpoint back-offs; the public constructors pass {@code
   * System::nanoTime}, tests a clock they drive by hand.
   */
  EndpointPool(
      String name,
      EndpointSource source,
      PoolConfig config,
      PoolMetrics metrics,
      Connections<T> connections,
      LongSupplier clock) {
    this.name = name;
    this.config = config;
    this.connections = connections;
    this.metrics = metrics;
    this.source = source;
    this.selector = new EndpointSelector(List.of(), config, this::activeOn, clock);
    selector.source(String.valueOf(source));
    this.pool =
        new GenericKeyedObjectPool<>(
            new EndpointPoolFactory<>(
                name, source, selector, connections, metrics, stats, this::closedUnderUs, ages),
            Pool2Settings.of(config));
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
    failIfInterrupted();
    callStarted();
    return selector.borrow(
        name,
        (e, elsewhere) -> borrowFrom(e, true, config.borrowTimeout()),
        () -> stats().gauges());
  }

  /**
   * {@link #borrow()} that waits at most {@code maxWait} for a busy pool, when that is less than
   * the borrow timeout (a call's deadline is nearer).
   */
  public Borrowed<T> borrow(Duration maxWait) throws TException {
    failIfInterrupted();
    callStarted();
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrow(
        name, (e, elsewhere) -> borrowFrom(e, true, wait), () -> stats().gauges());
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
    onFree = action;
  }

  /**
   * An idle connection lent now, on the calling thread, or {@code null} when none is idle: never
   * waits, never connects (the async pools' fast path).
   */
  public Borrowed<T> tryBorrowNow(
      InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
      throws TException {
    if (isClosed()) {
      throw closedException();
    }
    return selector.peek(
        name, (e, elsewhere) -> tryIdle(e), null, () -> stats().gauges(), preferred, avoid, chosen);
  }

  /**
   * The borrow of a call's retry: not a new call for the budget (the retry was taken from it
   * already), and elsewhere than {@code avoid}, where the call failed, unless no other endpoint can
   * take it.
   */
  public Borrowed<T> borrowForRetry(InetSocketAddress avoid, Duration maxWait) throws TException {
    failIfInterrupted();
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrowAvoiding(
        name, (e, elsewhere) -> borrowFrom(e, true, wait), () -> stats().gauges(), avoid);
  }

  /**
   * The borrow of a call refused "not run" by the endpoints of {@code refusedBy}: never one of
   * them, and not a new call for the budget, nor a retry taken from it (no handler ran).
   *
   * @throws PoolException as when no endpoint is available, if only those could take it
   */
  public Borrowed<T> borrowElsewhere(Collection<InetSocketAddress> refusedBy, Duration maxWait)
      throws TException {
    failIfInterrupted();
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrowExcluding(
        name, (e, elsewhere) -> borrowFrom(e, true, wait), () -> stats().gauges(), refusedBy);
  }

  /**
   * {@link #borrow()} for an async pool's connector: tries {@code preferred} first when it is in
   * the set and up, and does not count a timeout (the waiting call's own timer does).
   */
  public Borrowed<T> borrow(InetSocketAddress preferred) throws TException {
    failIfInterrupted();
    return selector.borrow(
        name,
        (e, elsewhere) -> borrowFrom(e, false, config.borrowTimeout()),
        () -> stats().gauges(),
        preferred);
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
    if (ages.over(b.connection)) {
      retire(b, true);
      return;
    }
    if (selector.isDraining(b.endpoint)) {
      retire(b, false); // its server drains and closes it once quiet: no call is sent on it
      return;
    }
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

  /**
   * Closes a healthy connection between two calls because its server drains (a "not run" refusal
   * said so): not counted as invalidated.
   */
  public void retire(Borrowed<T> b) {
    retire(b, false);
  }

  /** Gives back a connection that no call used: it does not count as borrowed. */
  public void giveBack(Borrowed<T> b) {
    stats.borrowed.decrement();
    release(b);
  }

  /** Destroys a connection whose call failed ({@code cause}) or that is unfit to reuse. */
  public void invalidate(Borrowed<T> b, Throwable cause) {
    lent.remove(b.connection);
    stats.invalidated.increment();
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

  /**
   * A connection closed by itself (the peer closed or reset it, a timeout), the factory's callback:
   * if idle, it leaves the pool now, before a borrow finds it. A lent one is left to its borrower,
   * whose call fails and destroys it.
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
    stats.invalidated.increment();
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

  public PoolStats stats() {
    return stats.snapshot(pool, selector);
  }

  public boolean isClosed() {
    return closed;
  }

  public PoolException closedException() {
    return new PoolException(name + " is closed (" + stats().gauges() + ")", null);
  }

  /**
   * Closes every idle connection, fails waiting borrowers with a {@link PoolException} saying the
   * pool is closed, and closes lent connections under their users (their calls fail; their return
   * then only counts them). Idempotent.
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

  /**
   * Destroys a healthy connection between two calls, past its age ({@code aged}) or to an endpoint
   * whose server drains, so that no call fails for it: the next borrow opens another, to an
   * endpoint chosen the normal way.
   */
  private void retire(Borrowed<T> b, boolean aged) {
    lent.remove(b.connection);
    if (aged) {
      stats.aged.increment();
    }
    try {
      pool.invalidateObject(b.endpoint, b.connection, DestroyMode.NORMAL);
    } catch (Exception e) {
      log.warn("{}: could not retire a connection to {}", name, Names.endpoint(b.endpoint), e);
      connections.close(b.connection);
    }
    onFree.run();
  }

  private void failIfInterrupted() throws PoolException {
    if (Thread.currentThread().isInterrupted()) {
      // An interrupted thread would close the channels it touches (ClosedByInterruptException)
      // and take a refused connect for a dead endpoint. Fail now; the flag stays set.
      throw new PoolException(
          name + ": interrupted before borrowing (" + stats().gauges() + ")",
          new InterruptedException());
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
  }

  private Borrowed<T> tryIdle(EndpointState endpoint) throws TException {
    if (pool.getNumIdle(endpoint.address) == 0) {
      return null;
    }
    T t;
    EndpointPoolFactory.idleOnly.set(Boolean.TRUE);
    try {
      // One nanosecond: pool2 reads a zero wait as "no limit" in one of its paths.
      t = pool.borrowObject(endpoint.address, Duration.ofNanos(1));
    } catch (EndpointPoolFactory.WouldConnect | NoSuchElementException e) {
      return null; // none idle after all (taken meanwhile, or failed validation and destroyed)
    } catch (Exception e) {
      throw borrowFailed(e);
    } finally {
      EndpointPoolFactory.idleOnly.remove();
    }
    return lend(endpoint, t, System.nanoTime());
  }

  /** {@code countTimeout}: whether a timeout is the caller's (an async connector's is not). */
  private Borrowed<T> borrowFrom(EndpointState endpoint, boolean countTimeout, Duration wait)
      throws TException, ConnectFailedException {
    if (isClosed()) {
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
      if (isClosed()) {
        throw closedException();
      }
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      String message = String.valueOf(e.getMessage());
      if (e.getCause() != null || message.startsWith("Unable to")) {
        // pool2 words it "Unable to validate/activate object": a fresh connection failed its
        // check, which is no timeout. Idle ones that fail are replaced without a word.
        throw new PoolException(
            about("new connection to ", endpoint, " failed validation"), e.getCause());
      }
      if (countTimeout) {
        stats.timeouts.increment();
        metrics.borrowTimedOut(endpoint.address, waited);
      }
      throw new PoolTimeoutException(endpoint.address, waited, stats(), selector.lastDownFailure());
    } catch (InterruptedException e) {
      if (isClosed()) {
        // close() interrupts the borrowers it releases; that interrupt is the pool's own.
        throw closedException();
      }
      Thread.currentThread().interrupt();
      throw new PoolException(
          about("interrupted while waiting for a connection to ", endpoint, ""), e);
    } catch (Exception e) {
      throw borrowFailed(e);
    }
    return lend(endpoint, t, start);
  }

  /** {@code name: before ENDPOINT after (gauges)}, the form of the borrow errors. */
  private String about(String before, EndpointState endpoint, String after) {
    return name
        + ": "
        + before
        + Names.endpoint(endpoint.address)
        + after
        + " ("
        + stats().gauges()
        + ")";
  }

  /**
   * Any other failure of pool2's {@code borrowObject} (an {@code Error} passes as it is): the pool
   * closed under the borrow, or something unexpected, which says so with the pool's name.
   */
  private TException borrowFailed(Exception e) {
    if (e instanceof TException t) {
      return t;
    }
    if (e instanceof IllegalStateException) {
      if (isClosed() || pool.isClosed()) {
        return closedException();
      }
      return new PoolException(name + ": borrow failed: " + e.getMessage(), e);
    }
    if (e instanceof RuntimeException r) {
      throw r;
    }
    return new PoolException(name + ": borrow failed: " + e, e);
  }

  private Borrowed<T> lend(EndpointState endpoint, T t, long start) throws TException {
    lent.add(t);
    if (isClosed()) {
      // close() ran while this borrow completed: the connection is not lent after all.
      lent.remove(t);
      try {
        pool.invalidateObject(endpoint.address, t, DestroyMode.NORMAL);
      } catch (Exception e) {
        connections.close(t); // pool2 would not destroy it (closed meanwhile): close it here
      }
      throw closedException();
    }
    stats.borrowed.increment();
    metrics.borrowed(endpoint.address, Duration.ofNanos(System.nanoTime() - start));
    return new EndpointPool.Borrowed<>(endpoint.address, t);
  }
}
