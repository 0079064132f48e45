package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.util.internal.CallTimeoutException;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections of a {@link MultiplexedPool}: its endpoints' shared connections as the source
 * publishes them, slots lent and given back, connects and closes, the evictor, and close. The one
 * owner of the pool's books; its collaborators hold their own state: each endpoint's connections
 * and their lock ({@link EndpointChannels}), the pool-wide connection count ({@link
 * ChannelCapacity}, an atomic), the endpoints' health and the choice of endpoint ({@link
 * EndpointSelector}: every routing decision, the room found on another endpoint included), the
 * async queue ({@link AsyncBorrows}) and the counters ({@link ChannelCounters}). No call holds two
 * locks, calls to different endpoints never contend, and connecting, closing and the user's
 * validator run outside every lock.
 */
final class SharedChannels implements AutoCloseable, CallPolicy.Budget {
  private static final Logger log = LoggerFactory.getLogger(SharedChannels.class);

  /** Opens a channel to an endpoint; any exception is a connect failure. */
  @FunctionalInterface
  interface Connector {
    ThriftChannel connect(InetSocketAddress endpoint) throws Exception;
  }

  private final String name;
  private final PoolConfig config;
  private final PoolMetrics metrics;
  private final Connector connector;
  private final Predicate<? super ThriftChannel> validator;
  private final EndpointSelector selector;
  private final EndpointSource source;
  private final int maxInFlight;
  // The endpoints in the source's set now; a borrow that finds none for its choice goes elsewhere.
  private final Map<InetSocketAddress, EndpointChannels> books = new ConcurrentHashMap<>();
  // Endpoints that left the source with calls still in flight, until their last connection closes.
  private final Set<EndpointChannels> draining = ConcurrentHashMap.newKeySet();
  // Guards endpoint updates, one at a time, and close's turn of `closed` against an update; only
  // an endpoint's own lock is taken under it (retiring that endpoint), never a user's code.
  private final Object updates = new Object();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ChannelCounters counters = new ChannelCounters();
  private final ChannelCapacity capacity;
  private final AsyncBorrows<Conn> waiters;
  private final ScheduledExecutorService evictor; // null when the interval is zero
  private volatile ConnectionAge age = ConnectionAge.NONE;

  SharedChannels(
      String name,
      EndpointSource source,
      PoolConfig config,
      PoolMetrics metrics,
      Connector connector,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight,
      LongSupplier clock) {
    this.name = name;
    this.config = config;
    this.metrics = metrics;
    this.connector = connector;
    this.validator = validator;
    this.source = source;
    this.maxInFlight = maxInFlight;
    this.selector = new EndpointSelector(List.of(), config, this::activeOn, clock);
    selector.source(String.valueOf(source));
    this.capacity = new ChannelCapacity(config.maxTotal());
    this.waiters = new AsyncBorrows<>(name, config, metrics, new QueueSource());
    this.evictor = startEvictor();
    try {
      source.start(this::endpointsChanged);
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /** Starts the evictor thread, unless the eviction interval is zero. */
  private ScheduledExecutorService startEvictor() {
    Duration interval = config.idleConnections().evictionInterval();
    if (interval.isZero()) {
      return null;
    }
    ScheduledThreadPoolExecutor ex =
        new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("thrift-nio-pool-evictor"));
    ex.setRemoveOnCancelPolicy(true);
    long every = interval.toNanos();
    ex.scheduleWithFixedDelay(this::evict, every, every, TimeUnit.NANOSECONDS);
    return ex;
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

  /** Retires each connection opened from now on after {@code age}; set before any call. */
  void maxConnectionAge(ConnectionAge age) {
    this.age = age;
  }

  /** Forgets a retired endpoint once its last connection has closed. */
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
   * calls it fails. A "not run" refusal is counted apart; one saying the server drains takes the
   * endpoint out and retires its connections.
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
    if (selector.callEnded(c.endpoint, failure, name)) {
      // Its server drains: no connection there takes a new call; the idle ones close now.
      EndpointChannels endpoint = books.get(c.endpoint);
      if (endpoint != null) {
        closeAll(endpoint.retireConnections());
      }
    }
  }

  /** Gives back a slot that no call used: it does not count as borrowed. */
  void giveBack(Conn lent) {
    counters.borrowed.decrement();
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
   * {@code null}: then {@link #later}.
   */
  Conn now(AsyncBorrows.Choice choice) throws TException {
    return waiters.now(choice);
  }

  /** Waits in the pool's queue for a slot; never blocks the caller. */
  CompletableFuture<Conn> later(AsyncBorrows.Choice choice) {
    return waiters.later(choice);
  }

  /**
   * A connection with a slot taken for one call, connecting or waiting on the calling thread;
   * release it with {@link #release}.
   */
  Conn acquire() throws TException {
    selector.budget().deposit();
    return selector.borrow(
        name,
        (endpoint, elsewhere) -> acquireFrom(endpoint, elsewhere, true),
        this::free,
        this::gauges,
        null);
  }

  /** Whether an idle connection may take a call: open, and the user's validator agrees. */
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
      counters.invalidated.increment();
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
      counters.invalidated.increment();
      metrics.invalidated(c.endpoint, failure);
    }
    if (close) {
      closeOne(c);
      forgetIfDrained(c.owner);
    }
    waiters.dispatch();
  }

  /**
   * Calls in flight on {@code endpoint} for the balancers ({@code LEAST_ACTIVE}, {@code
   * POWER_OF_TWO_CHOICES}), a connection owing a late reply counting as full.
   */
  private int activeOn(InetSocketAddress endpoint) {
    EndpointChannels e = books.get(endpoint);
    return e == null ? 0 : e.load();
  }

  PoolStats stats() {
    int[] counts = new int[3]; // open, active, waiting
    for (EndpointChannels e : allBooks()) {
      e.count(counts);
    }
    // Waiting: calls in the queue; a connector thread waiting inside is not one.
    return counters.stats(counts, waiters.waiting(), selector);
  }

  String gauges() {
    return stats().gauges();
  }

  PoolException closedException() {
    return new PoolException(name + " is closed (" + gauges() + ")", null);
  }

  // ---- Borrowing on the calling thread -------------------------------------------------------

  /**
   * A slot on an open connection of {@code endpoint} now, or {@code null}; never connects, never
   * waits. What the selector takes where it finds room for a call on another endpoint ({@link
   * EndpointSelector.Free}).
   */
  private Conn free(EndpointState endpoint) throws TException {
    EndpointChannels other = books.get(endpoint.address);
    return other == null ? null : tryFrom(other);
  }

  /** {@link #free} on the books of {@code endpoint}. */
  private Conn tryFrom(EndpointChannels endpoint) throws TException {
    if (isClosed()) {
      throw closedException();
    }
    List<Conn> dead = new ArrayList<>();
    try {
      while (true) {
        EndpointChannels.Grant grant =
            endpoint.take(config.maxPerEndpoint(), () -> false, dead, false);
        if (grant == null) {
          return null;
        }
        if (grant.fresh() && config.idleConnections().testOnBorrow() && !valid(grant.conn())) {
          if (endpoint.release(grant.conn(), true)) {
            counters.invalidated.increment();
            metrics.invalidated(endpoint.endpoint, null);
            dead.add(grant.conn());
          }
          continue;
        }
        counters.borrowed.increment();
        metrics.borrowed(endpoint.endpoint, Duration.ZERO);
        return grant.conn();
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

  /** The books of a chosen endpoint; a connect failure if it left the source meanwhile. */
  private EndpointChannels booksOf(EndpointState endpoint) throws ConnectFailedException {
    EndpointChannels b = books.get(endpoint.address);
    if (b == null) {
      throw leftSource(endpoint.address);
    }
    return b;
  }

  private ConnectFailedException leftSource(InetSocketAddress endpoint) {
    return new ConnectFailedException(
        new PoolException(
            name + ": endpoint " + Names.endpoint(endpoint) + " left " + source, null));
  }

  /**
   * Borrows from the chosen endpoint on the calling thread: a free connection, or a connect on a
   * reservation of the pool-wide count, or (at that limit) room made by closing another endpoint's
   * oldest idle connection; when none, the room the selector finds on another endpoint ({@code
   * elsewhere}); else waits on the endpoint's lock for a release. While a connection of the pool
   * owes a late reply, a free connection here or elsewhere is taken before connecting, so that a
   * slow call costs neither waiting behind it nor a new connection while the pool has room. {@code
   * countTimeout}: whether a timeout is the caller's (a connector's timeout is none: the queue's
   * own timer fails its waiters).
   */
  private Conn acquireFrom(
      EndpointState chosen, EndpointSelector.Elsewhere<Conn> elsewhere, boolean countTimeout)
      throws TException, ConnectFailedException {
    EndpointChannels endpoint = booksOf(chosen);
    InetSocketAddress ep = endpoint.endpoint;
    long start = System.nanoTime();
    long deadline = start + config.borrowTimeout().toNanos();
    List<Conn> dead = new ArrayList<>();
    EndpointChannels.Grant afterWait = null;
    try {
      while (true) {
        if (isClosed()) {
          throw closedException();
        }
        if (endpoint.isRetired()) {
          throw leftSource(ep); // it left while this call waited: another endpoint takes it
        }
        if (afterWait == null && anyOwesLateReplies()) {
          // Before connecting here: a free connection here, or elsewhere owing no late reply.
          Conn c = tryFrom(endpoint);
          c = c != null ? c : elsewhere.find();
          if (c != null) {
            return c;
          }
        }
        EndpointChannels.Grant grant =
            afterWait != null ? afterWait : endpoint.take(config.maxPerEndpoint(), capacity, dead);
        afterWait = null;
        if (grant == null && makeRoomElsewhere(endpoint, dead)) {
          continue;
        }
        if (grant != null && grant.conn() == null) {
          return connect(endpoint, start, true);
        }
        if (grant != null) {
          if (grant.fresh() && config.idleConnections().testOnBorrow() && !valid(grant.conn())) {
            if (endpoint.release(grant.conn(), true)) {
              counters.invalidated.increment();
              metrics.invalidated(ep, null);
              dead.add(grant.conn());
            }
            continue;
          }
          counters.borrowed.increment();
          metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
          return grant.conn();
        }
        Conn room = elsewhere.find();
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
          throw new PoolTimeoutException(ep, waited, stats(), selector.lastDownFailure());
        }
        try {
          afterWait = endpoint.takeOrAwait(config.maxPerEndpoint(), capacity, dead, left);
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

  // ---- Connecting and closing --------------------------------------------------------------

  /** At maxTotal: makes room by taking the oldest idle connection of another endpoint. */
  private boolean makeRoomElsewhere(EndpointChannels mine, List<Conn> dead) {
    if (!capacity.atLimit()) {
      return false;
    }
    for (EndpointChannels other : books.values()) {
      if (other != mine) {
        Conn c = other.removeOldestIdle();
        if (c != null) {
          closeOne(c); // frees its place in the count before the retry
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
      channel = connector.connect(ep);
      if (channel == null || !channel.isOpen()) {
        throw new TTransportException(
            TTransportException.NOT_OPEN,
            "channel factory gave a closed channel to " + Names.endpoint(ep));
      }
    } catch (Exception | Error e) {
      capacity.free();
      endpoint.connectFailed();
      forgetIfDrained(endpoint);
      counters.connectFailures.increment();
      metrics.connectFailed(ep, e);
      EndpointState state = selector.state(ep);
      if (state != null && !Thread.currentThread().isInterrupted()) {
        // An interrupted connect says nothing about the endpoint.
        state.connectFailed(e);
      }
      throw new ConnectFailedException(e);
    }
    counters.created.increment();
    metrics.created(ep);
    Conn c = endpoint.connected(channel, age.lifetimeNanos());
    channel.whenClosed(() -> closedUnderUs(c));
    if (isClosed()) {
      // close() ran while this connect completed: the connection is not lent after all.
      if (endpoint.release(c, true)) {
        closeOne(c);
      }
      throw closedException();
    }
    if (lend) {
      counters.borrowed.increment();
      metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
    }
    return c;
  }

  /** Closes each connection of {@code list}, already off its endpoint's books, and clears it. */
  private void closeAll(List<Conn> list) {
    for (Conn c : list) {
      closeOne(c);
    }
    list.clear();
  }

  /** Closes a connection already off its endpoint's books, and frees its place in the count. */
  private void closeOne(Conn c) {
    try {
      c.channel.close();
    } catch (RuntimeException e) {
      log.warn("{}: closing a channel to {} threw", name, Names.endpoint(c.endpoint), e);
    }
    capacity.free();
    counters.destroyed.increment();
    if (c.aged) {
      counters.aged.increment();
    }
    metrics.destroyed(c.endpoint);
    // A caller waiting on another endpoint for room under maxTotal may go on now.
    for (EndpointChannels e : books.values()) {
      e.wakeAll();
    }
    waiters.dispatch(); // room to connect for a waiter
  }

  // ---- The evictor ---------------------------------------------------------------------------

  /**
   * One eviction run, as the evictor makes them every {@link PoolConfig#evictionInterval()}: closes
   * connections idle past {@link PoolConfig#idleTimeout()} and idle ones that fail validation (run
   * outside the endpoint's lock, on connections it reserved), then tops every endpoint that is up
   * back to {@link IdleConnectionsConfig#minPerEndpoint()}.
   */
  private void evict() {
    try {
      long now = System.nanoTime();
      long idleTimeout = config.idleConnections().timeout().toNanos();
      List<Conn> toClose = new ArrayList<>();
      for (EndpointChannels endpoint : books.values()) {
        for (Conn c : endpoint.reserveIdle(now, idleTimeout, toClose)) {
          boolean invalid = !valid(c); // outside the endpoint's lock: the user's code
          if (endpoint.endIdleCheck(c, invalid)) {
            counters.invalidated.increment();
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
   * Keeps {@link IdleConnectionsConfig#minPerEndpoint()} connections open on every endpoint that is
   * up. A down endpoint is left to its probe; a failed connect marks it down like any other.
   */
  private void topUp() {
    int minIdle = config.idleConnections().minPerEndpoint();
    for (EndpointChannels endpoint : books.values()) {
      while (minIdle > 0
          && !isClosed()
          && isUp(endpoint.endpoint)
          && endpoint.reserveTopUp(minIdle, capacity)) {
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

  /**
   * The async queue's view of the pool: a slot now on the caller's thread without waiting or
   * connecting, or a borrow on a connector thread that may connect and wait.
   */
  private final class QueueSource implements AsyncBorrows.Source<Conn> {
    @Override
    public Conn tryNow(
        InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
        throws TException {
      return selector.peek(
          name,
          (endpoint, elsewhere) -> {
            Conn c = tryFrom(booksOf(endpoint));
            return c == null && anyOwesLateReplies() ? elsewhere.find() : c;
          },
          SharedChannels.this::free,
          SharedChannels.this::gauges,
          preferred,
          avoid,
          chosen);
    }

    @Override
    public Conn borrow(InetSocketAddress preferred) throws TException {
      return selector.borrow(
          name,
          (endpoint, elsewhere) -> acquireFrom(endpoint, elsewhere, false),
          SharedChannels.this::free,
          SharedChannels.this::gauges,
          preferred);
    }

    @Override
    public void giveBack(Conn lent) {
      SharedChannels.this.giveBack(lent); // counted when taken, but no call used it
    }

    @Override
    public PoolStats stats() {
      return SharedChannels.this.stats();
    }

    @Override
    public Throwable lastDownFailure() {
      return selector.lastDownFailure();
    }

    @Override
    public InetSocketAddress soleEndpoint() {
      List<EndpointState> all = selector.all();
      return all.size() == 1 ? all.get(0).address : null;
    }

    @Override
    public PoolException closedException() {
      return SharedChannels.this.closedException();
    }

    @Override
    public void timedOut() {
      counters.timeouts.increment();
    }

    @Override
    public void callStarted() {
      selector.budget().deposit();
    }
  }
}
