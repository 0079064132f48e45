package io.thriftnio.pool.internal;

import io.thriftnio.core.CallTimeoutException;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.NamedThreadFactory;
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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The books of a {@link MultiplexedPool}: its endpoints' shared connections, the pool-wide limit,
 * endpoint choice and back-off, the evictor and the counters. Each endpoint's books have a lock of
 * their own ({@link EndpointChannels}) and the pool-wide connection count is an atomic, so no call
 * holds two locks and calls to different endpoints never contend. Connecting, closing and the
 * user's validator run outside every lock.
 */
final class SharedChannels implements AutoCloseable, CallPolicy.Budget {
  private static final Logger log = LoggerFactory.getLogger(SharedChannels.class);

  private final String name;
  private final PoolConfig config;
  private final PoolMetrics metrics;
  private final MultiplexedPool.Opener opener;
  private final Predicate<? super ThriftChannel> validator;
  private final EndpointSelector selector;
  private final EndpointSource source;
  private final int maxInFlight;
  // The endpoints in the source's set now; a borrow that finds none for its choice goes elsewhere.
  private final Map<InetSocketAddress, EndpointChannels> books = new ConcurrentHashMap<>();
  // Endpoints that left the source with calls still in flight, until their last connection closes.
  private final Set<EndpointChannels> draining = ConcurrentHashMap.newKeySet();
  private final Object updates = new Object(); // one endpoint update at a time
  private final AtomicInteger total = new AtomicInteger(); // open + connecting, every endpoint
  private final ScheduledExecutorService evictor;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final LongAdder borrowed = new LongAdder();
  private final LongAdder created = new LongAdder();
  private final LongAdder destroyed = new LongAdder();
  private final LongAdder invalidated = new LongAdder();
  private final LongAdder timeouts = new LongAdder();
  private final LongAdder connectFailures = new LongAdder();
  private final AsyncBorrows<Conn> waiters;

  SharedChannels(
      String name,
      EndpointSource source,
      PoolConfig config,
      PoolMetrics metrics,
      MultiplexedPool.Opener opener,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight,
      LongSupplier clock) {
    this.name = name;
    this.config = config;
    this.metrics = metrics;
    this.opener = opener;
    this.validator = validator;
    this.source = source;
    this.maxInFlight = maxInFlight;
    this.selector = new EndpointSelector(List.of(), config, this::activeOn, clock);
    selector.source(String.valueOf(source));
    this.waiters = new AsyncBorrows<>(name, config, metrics, new Waiters());
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
    try {
      source.start(this::endpointsChanged);
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /**
   * The source published. New endpoints get books before the selector can choose them; those that
   * left are retired: their idle connections close now, their busy ones when their calls end.
   */
  private void endpointsChanged(List<InetSocketAddress> endpoints) {
    List<Conn> idle = new ArrayList<>();
    synchronized (updates) {
      if (closed.get()) {
        return;
      }
      for (InetSocketAddress a : endpoints) {
        books.computeIfAbsent(a, k -> new EndpointChannels(k, maxInFlight));
      }
      for (EndpointState e : selector.update(endpoints)) {
        EndpointChannels gone = books.remove(e.address);
        if (gone != null) {
          log.info("{}: endpoint {} left {}; draining it", name, Names.endpoint(e.address), source);
          draining.add(gone);
          idle.addAll(gone.retire());
          forgetIfDrained(gone);
        }
      }
    }
    closeAll(idle); // outside the update lock: closing a channel may take a moment
  }

  private void forgetIfDrained(EndpointChannels endpoint) {
    if (endpoint.isDrained()) {
      draining.remove(endpoint);
    }
  }

  List<InetSocketAddress> endpoints() {
    List<InetSocketAddress> list = new ArrayList<>();
    for (EndpointState e : selector.all()) {
      list.add(e.address);
    }
    return list;
  }

  /** The endpoints' books, current and draining. */
  private List<EndpointChannels> allBooks() {
    List<EndpointChannels> all = new ArrayList<>(books.values());
    all.addAll(draining);
    return all;
  }

  boolean isClosed() {
    return closed.get();
  }

  String name() {
    return name;
  }

  /**
   * A call on {@code c} ended, answered ({@code failure} null) or not: feeds outlier ejection with
   * what the endpoint did, not with collateral ({@link CallPolicy#aboutEndpoint}; {@code
   * byDeadline}: the caller's deadline ended it). A broken connection is one failure however many
   * calls it fails.
   */
  void callEnded(Conn c, Throwable failure, boolean byDeadline) {
    if (!CallPolicy.aboutEndpoint(failure, closed.get(), byDeadline)) {
      return;
    }
    if (failure != null
        && !(Failures.unwrap(failure) instanceof CallTimeoutException)
        && Failures.inTransport(failure)
        && !c.failureCounted.compareAndSet(false, true)) {
      return;
    }
    selector.callEnded(c.endpoint, failure, name);
  }

  /** Gives back a slot that no call used: it does not count as borrowed. */
  void giveBack(Conn lent) {
    borrowed.decrement();
    release(lent, null);
  }

  @Override
  public boolean tryRetry() {
    return selector.budget().tryWithdraw();
  }

  @Override
  public String retryRefused() {
    return selector.exhausted(gauges());
  }

  /** Calls in flight on every endpoint. */
  int pendingCalls() {
    int n = 0;
    for (EndpointChannels e : allBooks()) {
      n += e.active();
    }
    return n;
  }

  /**
   * A connection with a slot taken, taken on the calling thread without waiting or connecting; or
   * {@code null}: then {@link #later()}.
   */
  Conn now(AsyncBorrows.Choice choice) throws TException {
    return waiters.now(choice);
  }

  /** Waits in the pool's queue for a slot; never blocks the caller. */
  CompletableFuture<Conn> later(AsyncBorrows.Choice choice) {
    return waiters.later(choice);
  }

  /** The async queue's view of this pool. */
  private final class Waiters implements AsyncBorrows.Source<Conn> {
    @Override
    public Conn tryNow(
        InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
        throws TException {
      return selector.borrow(
          name,
          endpoint -> {
            EndpointChannels books = booksOf(endpoint);
            Conn c = tryFrom(books);
            return c == null && endpoint.isUp() && anyOwesLateReplies()
                ? elsewhere(books, avoid)
                : c;
          },
          SharedChannels.this::gauges,
          preferred,
          avoid,
          chosen);
    }

    @Override
    public Conn borrow(InetSocketAddress preferred) throws TException {
      return selector.borrow(
          name,
          endpoint -> acquireFrom(booksOf(endpoint), false),
          SharedChannels.this::gauges,
          preferred,
          null);
    }

    @Override
    public void giveBack(Conn lent) {
      borrowed.decrement(); // counted when taken, but no call used it
      release(lent, null);
    }

    @Override
    public PoolStats stats() {
      return SharedChannels.this.stats();
    }

    @Override
    public InetSocketAddress soleEndpoint() {
      List<EndpointState> all = selector.all();
      return all.size() == 1 ? all.get(0).address : null;
    }

    @Override
    public PoolClosedException closedException() {
      return SharedChannels.this.closedException();
    }

    @Override
    public void timedOut() {
      timeouts.increment();
    }

    @Override
    public void callStarted() {
      selector.budget().deposit();
    }
  }

  /** A slot on an open connection of {@code endpoint} now, or {@code null}; never connects. */
  private Conn tryFrom(EndpointChannels endpoint) throws TException {
    if (closed.get()) {
      throw closedException();
    }
    List<Conn> dead = new ArrayList<>();
    try {
      while (true) {
        Grant grant = endpoint.take(config.maxPerEndpoint(), () -> false, dead, false);
        if (grant == null) {
          return null;
        }
        if (grant.fresh && config.idleConnections().testOnBorrow() && !valid(grant.conn)) {
          if (endpoint.release(grant.conn, true)) {
            invalidated.increment();
            metrics.invalidated(endpoint.endpoint, null);
            dead.add(grant.conn);
          }
          continue;
        }
        borrowed.increment();
        metrics.borrowed(endpoint.endpoint, Duration.ZERO);
        return grant.conn;
      }
    } finally {
      closeAll(dead);
    }
  }

  /**
   * Whether a connection of the pool owes the late reply of a timed-out call: then the balancers,
   * which count it as full, may send calls to an endpoint with no room while another has some.
   */
  private boolean anyOwesLateReplies() {
    for (EndpointChannels e : books.values()) {
      if (e.owesLateReplies()) {
        return true;
      }
    }
    return false;
  }

  /**
   * A free connection, owing no late reply, of another endpoint that is up (not {@code mine}, not
   * {@code avoid}), or {@code null}: for a call whose chosen endpoint has no free connection while
   * a connection of the pool owes the late reply of a timed-out call. Taken rather than connecting,
   * so that a slow call costs neither waiting behind it nor a new connection while the pool has
   * room elsewhere.
   */
  private Conn elsewhere(EndpointChannels mine, InetSocketAddress avoid) throws TException {
    List<EndpointChannels> all = new ArrayList<>(books.values());
    int n = all.size();
    int start = n < 2 ? 0 : ThreadLocalRandom.current().nextInt(n); // no herd on the first
    for (int i = 0; i < n; i++) {
      EndpointChannels other = all.get((start + i) % n);
      if (other != mine && !other.endpoint.equals(avoid) && isUp(other.endpoint)) {
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
   * release it with {@link #release}.
   */
  Conn acquire() throws TException {
    selector.budget().deposit();
    return selector.borrow(name, endpoint -> acquireFrom(booksOf(endpoint), true), this::gauges);
  }

  /** The books of a chosen endpoint; a connect failure if it left the source meanwhile. */
  private EndpointChannels booksOf(EndpointState endpoint) throws ConnectFailedException {
    EndpointChannels books = this.books.get(endpoint.address);
    if (books == null) {
      throw leftSource(endpoint.address);
    }
    return books;
  }

  private ConnectFailedException leftSource(InetSocketAddress endpoint) {
    return new ConnectFailedException(
        new PoolException(
            name + ": endpoint " + Names.endpoint(endpoint) + " left " + source, null));
  }

  /**
   * Borrows on the calling thread. {@code countTimeout}: whether a timeout is the caller's (a
   * connector's timeout is none: the queue's own timer fails its waiters).
   */
  private Conn acquireFrom(EndpointChannels endpoint, boolean countTimeout)
      throws TException, ConnectFailedException {
    InetSocketAddress ep = endpoint.endpoint;
    long start = System.nanoTime();
    long deadline = start + config.borrowTimeout().toNanos();
    List<Conn> dead = new ArrayList<>();
    Grant afterWait = null;
    try {
      while (true) {
        if (closed.get()) {
          throw closedException();
        }
        if (endpoint.isRetired()) {
          throw leftSource(ep); // it left while this call waited: another endpoint takes it
        }
        if (afterWait == null && anyOwesLateReplies()) {
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
                : endpoint.take(config.maxPerEndpoint(), this::reserveTotal, dead);
        afterWait = null;
        if (grant == null && makeRoomElsewhere(endpoint, dead)) {
          continue;
        }
        if (grant != null && grant.conn == null) {
          return connect(endpoint, start, true);
        }
        if (grant != null) {
          if (grant.fresh && config.idleConnections().testOnBorrow() && !valid(grant.conn)) {
            if (endpoint.release(grant.conn, true)) {
              invalidated.increment();
              metrics.invalidated(ep, null);
              dead.add(grant.conn);
            }
            continue;
          }
          borrowed.increment();
          metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
          return grant.conn;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          Duration waited = Duration.ofNanos(System.nanoTime() - start);
          if (countTimeout) {
            timeouts.increment();
            metrics.borrowTimedOut(ep, waited);
          }
          throw new PoolTimeoutException(ep, waited, stats());
        }
        try {
          afterWait = endpoint.takeOrAwait(config.maxPerEndpoint(), this::reserveTotal, dead, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new PoolException(
              name
                  + ": interrupted while waiting for a connection to "
                  + Names.endpoint(ep)
                  + " ("
                  + gauges()
                  + ")",
              e);
        }
      }
    } finally {
      closeAll(dead);
    }
  }

  private boolean reserveTotal() {
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
  private boolean makeRoomElsewhere(EndpointChannels mine, List<Conn> dead) {
    if (total.get() < config.maxTotal()) {
      return false;
    }
    for (EndpointChannels other : books.values()) {
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
  private Conn connect(EndpointChannels endpoint, long start, boolean lend)
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
      forgetIfDrained(endpoint);
      connectFailures.increment();
      metrics.connectFailed(ep, e);
      EndpointState state = selector.state(ep);
      if (state != null && !Thread.currentThread().isInterrupted()) {
        // An interrupted connect says nothing about the endpoint.
        state.connectFailed(e);
      }
      throw new ConnectFailedException(e);
    }
    created.increment();
    metrics.created(ep);
    Conn c = endpoint.connected(channel);
    channel.whenClosed(() -> closedUnderUs(c));
    if (closed.get()) {
      // close() ran while this connect completed: the connection is not lent after all.
      if (endpoint.release(c, true)) {
        closeOne(c);
      }
      throw closedException();
    }
    if (lend) {
      borrowed.increment();
      metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
    }
    return c;
  }

  /**
   * Keeps {@link io.thriftnio.pool.IdleConnectionsConfig#minPerEndpoint()} connections open on
   * every endpoint that is up. A down endpoint is left to its probe; a failed connect marks it down
   * like any other.
   */
  private void topUp() {
    int minIdle = config.idleConnections().minPerEndpoint();
    for (EndpointChannels endpoint : books.values()) {
      while (minIdle > 0
          && !closed.get()
          && isUp(endpoint.endpoint)
          && endpoint.reserveTopUp(minIdle, this::reserveTotal)) {
        try {
          release(connect(endpoint, System.nanoTime(), false), null);
        } catch (TException | ConnectFailedException e) {
          break; // counted, and the endpoint marked down, in connect()
        }
      }
    }
  }

  private boolean isUp(InetSocketAddress endpoint) {
    EndpointState state = selector.state(endpoint);
    return state != null && state.isUp();
  }

  private boolean valid(Conn c) {
    try {
      return c.channel.isOpen() && (validator == null || validator.test(c.channel));
    } catch (RuntimeException e) {
      log.warn("{}: validator threw for a channel to {}", name, Names.endpoint(c.endpoint), e);
      return false;
    }
  }

  /**
   * The channel closed (the peer closed or reset it, the server stopped): an idle connection leaves
   * the books now, counted as invalidated and destroyed, so that no call is sent on it; a busy one
   * leaves when its failed calls are released. Runs on the thread that saw the close.
   */
  private void closedUnderUs(Conn c) {
    if (c.owner.removeIfIdle(c)) {
      invalidated.increment();
      metrics.invalidated(c.endpoint, null);
      closeOne(c);
      forgetIfDrained(c.owner);
    }
  }

  /** A call ended; {@code failure} condemns its connection when not null. */
  void release(Conn c, Throwable failure) {
    boolean close = c.owner.release(c, failure != null || closed.get());
    if (failure != null && close) {
      // Once per connection, as PoolStats counts it: its other failed calls find it gone.
      invalidated.increment();
      metrics.invalidated(c.endpoint, failure);
    }
    if (close) {
      closeOne(c);
      forgetIfDrained(c.owner);
    }
    waiters.dispatch();
  }

  private void closeAll(List<Conn> list) {
    for (Conn c : list) {
      closeOne(c);
    }
    list.clear();
  }

  /** Closes a connection already off its endpoint's books, and frees its place in the total. */
  private void closeOne(Conn c) {
    try {
      c.channel.close();
    } catch (RuntimeException e) {
      log.warn("{}: closing a channel to {} threw", name, Names.endpoint(c.endpoint), e);
    }
    total.decrementAndGet();
    destroyed.increment();
    metrics.destroyed(c.endpoint);
    // A caller waiting on another endpoint for room under maxTotal may go on now.
    for (EndpointChannels e : books.values()) {
      e.wakeAll();
    }
    waiters.dispatch(); // room to connect for a waiter
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
      for (EndpointChannels endpoint : books.values()) {
        for (Conn c : endpoint.reserveIdle(now, idleTimeout, toClose)) {
          boolean invalid = !valid(c); // outside the endpoint's lock: the user's code
          if (endpoint.endIdleCheck(c, invalid)) {
            invalidated.increment();
            toClose.add(c);
          }
        }
      }
      closeAll(toClose);
      topUp();
    } catch (RuntimeException e) {
      log.warn("{}: eviction run failed", name, e);
    }
  }

  /**
   * Calls in flight on {@code endpoint} for the balancers ({@code LEAST_ACTIVE}, {@code
   * POWER_OF_TWO_CHOICES}), a connection owing a late reply counting as full.
   */
  int activeOn(InetSocketAddress endpoint) {
    EndpointChannels e = books.get(endpoint);
    return e == null ? 0 : e.load();
  }

  /** The up/down state of one endpoint; for tests. */
  EndpointState state(InetSocketAddress endpoint) {
    return selector.state(endpoint);
  }

  PoolStats stats() {
    int[] counts = new int[3]; // open, active, waiting
    for (EndpointChannels e : allBooks()) {
      e.count(counts);
    }
    return new PoolStats(
        counts[0],
        counts[1],
        counts[0] - counts[1],
        waiters.waiting(), // calls; a connector thread waiting inside is not one
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

  private String gauges() {
    return stats().gauges();
  }

  private PoolClosedException closedException() {
    return new PoolClosedException(name + " is closed (" + gauges() + ")");
  }

  /** Closes every connection (calls in flight fail) and wakes waiting borrowers. Idempotent. */
  @Override
  public void close() {
    synchronized (updates) {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
    }
    if (evictor != null) {
      evictor.shutdownNow();
    }
    waiters.close();
    try {
      source.close();
    } catch (RuntimeException e) {
      log.warn("{}: closing {} threw", name, source, e);
    }
    List<Conn> toClose = new ArrayList<>();
    for (EndpointChannels e : allBooks()) {
      toClose.addAll(e.removeAll());
    }
    closeAll(toClose);
  }
}
