package io.thriftnio.pool;

import io.thriftnio.core.CallTimeoutException;
import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The books of a {@link MultiplexedPool}: its endpoints' shared connections as the source publishes
 * them, endpoint choice and back-off, slots lent and given back, and close. Its parts: {@link
 * ChannelBorrows} borrows on the calling thread, {@link ChannelWaiters} is the async queue's view,
 * {@link ChannelCapacity} keeps the pool-wide limit and opens and closes connections, {@link
 * ChannelEviction} runs the evictor and {@link ChannelCounters} counts. Each endpoint's books have
 * a lock of their own ({@link EndpointChannels}) and the pool-wide connection count is an atomic,
 * so no call holds two locks and calls to different endpoints never contend. Connecting, closing
 * and the user's validator run outside every lock.
 */
final class SharedChannels implements AutoCloseable, CallPolicy.Budget {
  private static final Logger log = LoggerFactory.getLogger(SharedChannels.class);

  private final String name;
  private final PoolMetrics metrics;
  private final Predicate<? super ThriftChannel> validator;
  final EndpointSelector selector;
  final EndpointSource source;
  private final int maxInFlight;
  // The endpoints in the source's set now; a borrow that finds none for its choice goes elsewhere.
  final Map<InetSocketAddress, EndpointChannels> books = new ConcurrentHashMap<>();
  // Endpoints that left the source with calls still in flight, until their last connection closes.
  private final Set<EndpointChannels> draining = ConcurrentHashMap.newKeySet();
  // Guards endpoint updates, one at a time, and close's turn of `closed` against an update; no
  // other lock is taken under it, and the parts never take it.
  private final Object updates = new Object();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ChannelCounters counters = new ChannelCounters();
  private final ChannelCapacity capacity;
  private final ChannelBorrows borrows;
  private final AsyncBorrows<Conn> waiters;
  private final ChannelEviction eviction;
  private volatile ConnectionAge age = ConnectionAge.NONE;

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
    this.metrics = metrics;
    this.validator = validator;
    this.source = source;
    this.maxInFlight = maxInFlight;
    this.selector = new EndpointSelector(List.of(), config, this::activeOn, clock);
    selector.source(String.valueOf(source));
    this.capacity = new ChannelCapacity(this, config, metrics, opener, counters);
    this.borrows = new ChannelBorrows(this, config, metrics, counters, capacity);
    this.waiters =
        new AsyncBorrows<>(name, config, metrics, new ChannelWaiters(this, borrows, counters));
    this.eviction = new ChannelEviction(this, config, counters, capacity);
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
    capacity.closeAll(idle); // outside the update lock: closing a channel may take a moment
  }

  /** Retires each connection opened from now on after {@code age}; set before any call. */
  void maxConnectionAge(ConnectionAge age) {
    this.age = age;
  }

  /** How long connections opened now live. */
  ConnectionAge age() {
    return age;
  }

  /** Forgets a retired endpoint once its last connection has closed. */
  void forgetIfDrained(EndpointChannels endpoint) {
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
        capacity.closeAll(endpoint.retireConnections());
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
   * {@code null}: then {@link #later()}.
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
    return borrows.acquire();
  }

  /** Whether {@code endpoint} is in the set and up (not backed off, not ejected). */
  boolean isUp(InetSocketAddress endpoint) {
    EndpointState state = selector.state(endpoint);
    return state != null && state.isUp();
  }

  /** Whether an idle connection may take a call: open, and the user's validator agrees. */
  boolean valid(Conn c) {
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
  void closedUnderUs(Conn c) {
    if (c.owner.removeIfIdle(c)) {
      counters.invalidated.increment();
      metrics.invalidated(c.endpoint, null);
      capacity.closeOne(c);
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
      capacity.closeOne(c);
      forgetIfDrained(c.owner);
    }
    waiters.dispatch();
  }

  /** Serves the queue's waiters that a slot or room to connect freed. */
  void dispatch() {
    waiters.dispatch();
  }

  /** One eviction run, as the evictor makes them. */
  void evict() {
    eviction.evict();
  }

  /**
   * Calls in flight on {@code endpoint} for the balancers ({@code LEAST_ACTIVE}, {@code
   * POWER_OF_TWO_CHOICES}), a connection owing a late reply counting as full.
   */
  int activeOn(InetSocketAddress endpoint) {
    EndpointChannels e = books.get(endpoint);
    return e == null ? 0 : e.load();
  }

  /** The up/down state of one endpoint, or {@code null} if it is not in the set. */
  EndpointState state(InetSocketAddress endpoint) {
    return selector.state(endpoint);
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

  PoolClosedException closedException() {
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
    eviction.stop();
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
    capacity.closeAll(toClose);
  }
}
