package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the endpoint of the next borrow ({@link EndpointChoice}, after the pool's {@link
 * io.thriftnio.pool.Balancer}), skipping those down, and runs the borrow loop over it: every
 * routing decision of the pools is made here, the room a full endpoint's call finds on another
 * endpoint included ({@link Elsewhere}). The set of endpoints changes when the pool's {@code
 * EndpointSource} publishes ({@link #update}); a borrow works on the set it read when it began.
 */
final class EndpointSelector {
  private static final Logger log = LoggerFactory.getLogger(EndpointSelector.class);
  private volatile List<EndpointState> endpoints = List.of(); // replaced whole by update()
  private final Map<InetSocketAddress, EndpointState> byAddress = new ConcurrentHashMap<>();
  private final PoolConfig config;
  private final EndpointChoice choice;
  private final LongSupplier clock;
  private final DoubleSupplier jitter;
  private final RetryBudget budget;
  private final int ejectAfter;
  private final LongAdder ejections = new LongAdder();
  private final LongAdder notRun = new LongAdder();
  private final Object ejecting = new Object(); // one ejection decision at a time
  private final Object lock = new Object(); // one update() at a time
  private volatile String source = "the endpoint source";

  EndpointSelector(
      List<InetSocketAddress> addresses,
      PoolConfig config,
      ToIntFunction<InetSocketAddress> active,
      LongSupplier clock) {
    this(addresses, config, active, clock, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param jitter where each endpoint back-off falls in its jitter range, in {@code [0, 1)}; see
   *     {@link EndpointState}
   */
  EndpointSelector(
      List<InetSocketAddress> addresses,
      PoolConfig config,
      ToIntFunction<InetSocketAddress> active,
      LongSupplier clock,
      DoubleSupplier jitter) {
    this.config = config;
    this.choice = new EndpointChoice(config.balancer(), active);
    this.clock = clock;
    this.jitter = jitter;
    this.budget = new RetryBudget(config.retryBudget(), clock);
    this.ejectAfter = config.endpointHealth().ejectAfterConsecutiveFailures();
    update(addresses);
  }

  /**
   * A call on {@code address} ended with {@code failure} ({@code null}: a reply): an answer ends
   * the endpoint's run of failures, a transport failure adds to it, and the {@link
   * io.thriftnio.pool.EndpointHealthConfig#ejectAfterConsecutiveFailures()}-th ejects the endpoint
   * unless it is the last one up. Other failures (the pool's own, a deadline) say nothing about the
   * endpoint. A "not run" refusal ({@link Failures#notRun}) is counted apart and says nothing about
   * the endpoint's health, unless it says the server is draining: the endpoint is then taken out
   * ({@link EndpointState#drain}) unless it is the last one up, and this returns {@code true}, for
   * the pool to close its idle connections.
   */
  boolean callEnded(InetSocketAddress address, Throwable failure, String pool) {
    if (failure != null && Failures.notRun(failure)) {
      notRun.increment();
      return Failures.draining(failure) && drained(address, failure, pool);
    }
    if (ejectAfter == 0) {
      return false;
    }
    EndpointState e = byAddress.get(address);
    if (e == null) {
      return false;
    }
    if (failure == null || Failures.keepsConnection(Failures.unwrap(failure))) {
      e.callSucceeded();
      return false;
    }
    if (!Failures.inTransport(failure) || e.callFailed() < ejectAfter) {
      return false;
    }
    boolean ejected;
    synchronized (ejecting) {
      // The last endpoint up stays: refusing every call would be worse than calls that may fail.
      ejected = anotherUp(e) && e.eject(Failures.unwrap(failure));
    }
    if (ejected) {
      ejections.increment();
      log.warn(
          "{}: ejected endpoint {} after {} call failures in a row (last: {}): {}",
          pool,
          Names.endpoint(address),
          ejectAfter,
          Failures.unwrap(failure).toString(),
          e.describeDown());
    }
    return false;
  }

  /** Takes {@code address} out for its server's drain, unless it is the last one up. */
  private boolean drained(InetSocketAddress address, Throwable refusal, String pool) {
    EndpointState e = byAddress.get(address);
    if (e == null) {
      return false;
    }
    boolean out;
    synchronized (ejecting) {
      // The last endpoint up stays, as for an ejection: its calls hear the refusal themselves.
      out = anotherUp(e) && e.drain(Failures.unwrap(refusal));
    }
    if (out) {
      log.info(
          "{}: endpoint {} is draining ({}); no new call goes there until a new connection"
              + " to it succeeds: {}",
          pool,
          Names.endpoint(address),
          Failures.unwrap(refusal).getMessage(),
          e.describeDown());
    }
    return out;
  }

  /** Whether {@code address} is out because its server drains ({@link EndpointState#drain}). */
  boolean isDraining(InetSocketAddress address) {
    EndpointState e = byAddress.get(address);
    return e != null && e.isDraining();
  }

  private boolean anotherUp(EndpointState e) {
    for (EndpointState other : endpoints) {
      if (other != e && other.isUp()) {
        return true;
      }
    }
    return false;
  }

  /** Calls refused "not run" by their server, since the pool started. */
  long notRun() {
    return notRun.sum();
  }

  /** Endpoints ejected after consecutive call failures, since the pool started. */
  long ejections() {
    return ejections.sum();
  }

  /** The pool's retry budget: calls deposit, retries on another endpoint withdraw. */
  RetryBudget budget() {
    return budget;
  }

  /** Names the source in errors. */
  void source(String source) {
    this.source = source;
  }

  /**
   * Replaces the set of endpoints with {@code addresses}. Endpoints that stay keep their state
   * (down, back-off) and their place in the order; new ones are appended, up. Returns those that
   * left, which the pool drains. Never blocks on anything but a concurrent update.
   */
  List<EndpointState> update(List<InetSocketAddress> addresses) {
    synchronized (lock) {
      Set<InetSocketAddress> wanted = new LinkedHashSet<>(addresses);
      List<EndpointState> kept = new ArrayList<>();
      List<EndpointState> left = new ArrayList<>();
      for (EndpointState e : endpoints) {
        if (wanted.remove(e.address)) {
          kept.add(e);
        } else {
          left.add(e);
        }
      }
      for (InetSocketAddress a : wanted) {
        EndpointState s =
            new EndpointState(
                a,
                config.endpointHealth().backoff(),
                config.endpointHealth().maxBackoff(),
                config.endpointHealth().maxEjectionBackoff(),
                probeTimeout(config),
                clock,
                jitter);
        kept.add(s);
        byAddress.put(a, s);
      }
      endpoints = List.copyOf(kept);
      for (EndpointState e : left) {
        byAddress.remove(e.address, e);
      }
      return left;
    }
  }

  /** Whether {@code address} is in the current set. */
  boolean contains(InetSocketAddress address) {
    return byAddress.containsKey(address);
  }

  /** Stands for one connect in {@link #probeTimeout}: the connect timeout is the transport's. */
  private static final Duration CONNECT_ALLOWANCE = Duration.ofSeconds(30);

  /**
   * How long a probe may be held before the next borrower takes it over: a backstop, since every
   * borrow ends its lease. A borrow attempt waits at most {@code borrowTimeout} plus one connect.
   */
  static Duration probeTimeout(PoolConfig config) {
    return config
        .borrowTimeout()
        .plus(config.endpointHealth().maxBackoff())
        .plus(CONNECT_ALLOWANCE);
  }

  List<EndpointState> all() {
    return endpoints;
  }

  /** The state of {@code address}, or {@code null} if it is not in the current set. */
  EndpointState state(InetSocketAddress address) {
    return byAddress.get(address);
  }

  /** One borrow attempt on the chosen endpoint. */
  @FunctionalInterface
  interface Attempt<T> {
    /**
     * Borrows from {@code endpoint}; when it has no room, {@code elsewhere} finds room on another
     * endpoint (where is this class's decision).
     *
     * @throws ConnectFailedException if a connect failed; the borrow then tries another endpoint
     */
    T on(EndpointState endpoint, Elsewhere<T> elsewhere) throws TException, ConnectFailedException;
  }

  /**
   * Room for the call on an endpoint other than the chosen one, without waiting or connecting, or
   * {@code null}: what an attempt takes rather than wait or connect where it was sent.
   */
  @FunctionalInterface
  interface Elsewhere<T> {
    T find() throws TException;
  }

  /**
   * A slot taken on {@code endpoint} at once, never waiting or connecting; {@code null} if none.
   */
  @FunctionalInterface
  interface Free<T> {
    T take(EndpointState endpoint) throws TException;
  }

  private static final Elsewhere<Object> NOWHERE = () -> null;

  @SuppressWarnings("unchecked")
  private static <T> Elsewhere<T> nowhere() {
    return (Elsewhere<T>) NOWHERE;
  }

  /**
   * The borrow loop of every pool: choose an endpoint, attempt, and after a connect failure try the
   * others, each once, each retry taken from the {@link RetryBudget} (spent: the connect failure is
   * the caller's error). The lease on the chosen endpoint ends with its attempt, however it ends: a
   * probe that did not succeed is freed for the next borrower (a probe left held once kept an
   * endpoint down for good), and only a probe's success brings a down endpoint back ({@link
   * EndpointState#succeeded}).
   *
   * @param pool names the pool in errors
   * @param gauges the pool's state, for errors
   */
  <T> T borrow(String pool, Attempt<T> attempt, Supplier<String> gauges) throws TException {
    return borrow(pool, attempt, gauges, null);
  }

  /**
   * {@link #borrow(String, Attempt, Supplier)} that tries {@code preferred} first while it is in
   * the set and up or due for its probe (an async waiter goes where the balancer sent it).
   */
  <T> T borrow(
      String pool, Attempt<T> attempt, Supplier<String> gauges, InetSocketAddress preferred)
      throws TException {
    return borrow(pool, attempt, null, gauges, preferred);
  }

  /**
   * {@link #borrow(String, Attempt, Supplier, InetSocketAddress)} whose attempt may take room on
   * another endpoint: {@code free} takes a slot there. The other endpoint is one up, not the chosen
   * one, not avoided nor excluded nor tried; none while the attempt is an endpoint's probe or its
   * endpoint is down (a probe must reach its endpoint: served from another endpoint's connection,
   * it would bring its endpoint up unheard).
   */
  <T> T borrow(
      String pool,
      Attempt<T> attempt,
      Free<T> free,
      Supplier<String> gauges,
      InetSocketAddress preferred)
      throws TException {
    return borrow(pool, attempt, free, gauges, preferred, null, null, null, false);
  }

  /**
   * {@link #borrow(String, Attempt, Supplier)} that goes to {@code avoid} (where a call just
   * failed) only if no other endpoint can take it: a retry's borrow.
   */
  <T> T borrowAvoiding(
      String pool, Attempt<T> attempt, Supplier<String> gauges, InetSocketAddress avoid)
      throws TException {
    return borrow(pool, attempt, null, gauges, null, avoid, null, null, false);
  }

  /**
   * {@link #borrow(String, Attempt, Supplier)} that never goes to an endpoint of {@code excluded}
   * (those that refused the call "not run"): it fails as when no endpoint is available if only
   * those could take the call.
   */
  <T> T borrowExcluding(
      String pool,
      Attempt<T> attempt,
      Supplier<String> gauges,
      Collection<InetSocketAddress> excluded)
      throws TException {
    return borrow(pool, attempt, null, gauges, null, null, excluded, null, false);
  }

  /**
   * A borrow whose attempt only takes a free connection, never connects (the async pools' fast path
   * and dispatcher), avoids {@code avoid} as {@link #borrowAvoiding} does and reports each endpoint
   * tried to {@code chosen}. Its probe is a peek's ({@link EndpointState#tryAcquire}).
   */
  <T> T peek(
      String pool,
      Attempt<T> attempt,
      Free<T> free,
      Supplier<String> gauges,
      InetSocketAddress preferred,
      InetSocketAddress avoid,
      Consumer<InetSocketAddress> chosen)
      throws TException {
    return borrow(pool, attempt, free, gauges, preferred, avoid, null, chosen, true);
  }

  private <T> T borrow(
      String pool,
      Attempt<T> attempt,
      Free<T> free,
      Supplier<String> gauges,
      InetSocketAddress preferred,
      InetSocketAddress avoid,
      Collection<InetSocketAddress> excluded,
      Consumer<InetSocketAddress> chosen,
      boolean peek)
      throws TException {
    List<EndpointState> tried = null;
    EndpointState avoided = avoid == null ? null : byAddress.get(avoid);
    if (avoided != null) {
      tried = new ArrayList<>();
      tried.add(avoided);
    }
    if (excluded != null) {
      tried = tried == null ? new ArrayList<>() : tried;
      for (InetSocketAddress a : excluded) {
        EndpointState e = byAddress.get(a);
        if (e != null) {
          tried.add(e);
        }
      }
    }
    Throwable lastConnectFailure = null;
    InetSocketAddress lastFailed = null;
    EndpointState first = preferred == null ? null : byAddress.get(preferred);
    while (true) {
      List<EndpointState> set = endpoints;
      // A preferred endpoint that is down but due for its probe is probed here: the balancer sent
      // the call there for that probe, and serving it from another endpoint's free connection
      // instead kept an ejected endpoint out for good while the others had connections to spare.
      EndpointState.Lease preferredLease = first != null ? first.tryAcquire(peek) : null;
      first = null;
      EndpointState.Lease chosenLease =
          preferredLease != null ? preferredLease : choice.choose(set, tried, peek);
      if (chosenLease == null && avoided != null && tried.remove(avoided)) {
        chosenLease =
            choice.choose(set, tried, peek); // no other endpoint: the one avoided rather than none
      }
      EndpointState.Lease lease = chosenLease;
      if (lease == null) {
        throw noneAvailable(pool, set.isEmpty(), lastConnectFailure, gauges.get());
      }
      if (lastConnectFailure != null && !budget.tryWithdraw()) {
        lease.close();
        throw budgetExhausted(pool, lastFailed, lastConnectFailure, gauges.get());
      }
      EndpointState endpoint = lease.endpoint();
      if (chosen != null) {
        chosen.accept(endpoint.address);
      }
      List<EndpointState> skip = tried;
      Elsewhere<T> elsewhere =
          free == null
              ? nowhere()
              : () ->
                  lease.isProbe() || !endpoint.isUp()
                      ? null
                      : roomElsewhere(set, endpoint, skip, free);
      try (lease) {
        T borrowed = attempt.on(endpoint, elsewhere);
        if (borrowed != null) {
          endpoint.succeeded(lease); // up again only through its probe
        }
        return borrowed; // null: an attempt that would wait (the async pools' fast path)
      } catch (ConnectFailedException f) {
        lastConnectFailure = f.getCause();
        lastFailed = endpoint.address;
        if (tried == null) {
          tried = new ArrayList<>();
        }
        tried.add(endpoint);
      }
    }
  }

  /**
   * A slot on another endpoint than {@code chosen} that is up and not in {@code skip}, taken by
   * {@code free}, or {@code null}: the endpoints are walked from a random one, so that callers that
   * overflow together do not all land on the first.
   */
  private static <T> T roomElsewhere(
      List<EndpointState> set, EndpointState chosen, List<EndpointState> skip, Free<T> free)
      throws TException {
    int n = set.size();
    int start = n < 2 ? 0 : ThreadLocalRandom.current().nextInt(n);
    for (int i = 0; i < n; i++) {
      EndpointState other = set.get((start + i) % n);
      if (other != chosen && other.isUp() && (skip == null || !skip.contains(other))) {
        T t = free.take(other);
        if (t != null) {
          return t;
        }
      }
    }
    return null;
  }

  /**
   * Why a borrow found no endpoint, one {@link PoolException} however it came about: {@code no
   * endpoint available: } and which endpoints are down and for how long, caused by the last
   * endpoint failure (this borrow's last connect failure when it tried one, else the latest of a
   * down endpoint), whose text the message carries. Nothing was written.
   */
  private TException noneAvailable(
      String pool, boolean emptySet, Throwable lastConnectFailure, String gauges) {
    if (lastConnectFailure instanceof PoolException) {
      return (TException) lastConnectFailure; // a pool's own refusal, in these words already
    }
    if (emptySet && lastConnectFailure == null) {
      return new PoolException(pool + ": " + source + " lists no endpoint (" + gauges + ")", null);
    }
    Throwable last = lastConnectFailure != null ? lastConnectFailure : lastDownFailure();
    String down = describeDown();
    String named =
        last == null || down.contains(String.valueOf(last.getMessage()))
            ? down
            : (down.isEmpty() ? "" : down + "; ") + "last failure: " + last.getMessage();
    return new PoolException(
        pool + ": no endpoint available: " + named + " (" + gauges + ")", last);
  }

  /**
   * The latest failure of an endpoint that is down, or {@code null}: why a borrow that timed out
   * found no other endpoint to serve it.
   */
  Throwable lastDownFailure() {
    Throwable latest = null;
    long at = 0;
    for (EndpointState e : endpoints) {
      if (e.isUp()) {
        continue;
      }
      EndpointState.Failure f = e.lastFailureWithTime();
      if (f != null && (latest == null || f.at - at > 0)) {
        latest = f.cause;
        at = f.at;
      }
    }
    return latest;
  }

  /**
   * The connect failure that ends a borrow because the retry budget is spent: the same kind of
   * error, saying so, with the budget's and the pool's numbers, caused by the original.
   */
  private TException budgetExhausted(
      String pool, InetSocketAddress endpoint, Throwable connectFailure, String gauges) {
    String message =
        pool
            + ": connect to "
            + Names.endpoint(endpoint)
            + " failed: "
            + connectFailure.getMessage()
            + "; not retried on another endpoint: "
            + exhausted(gauges);
    if (connectFailure instanceof PoolException) {
      return new PoolException(message, connectFailure);
    }
    int type =
        connectFailure instanceof TTransportException
            ? ((TTransportException) connectFailure).getType()
            : TTransportException.NOT_OPEN;
    return new TTransportException(type, message, connectFailure);
  }

  /** {@code retry budget exhausted (...) (total=...)}: what a refused retry adds to its error. */
  String exhausted(String gauges) {
    return "retry budget exhausted (" + budget.describe() + ") (" + gauges + ")";
  }

  String describeDown() {
    StringBuilder sb = new StringBuilder();
    for (EndpointState e : endpoints) {
      if (!e.isUp()) {
        sb.append(sb.length() == 0 ? "" : "; ").append(e.describeDown());
      }
    }
    return sb.toString();
  }
}
