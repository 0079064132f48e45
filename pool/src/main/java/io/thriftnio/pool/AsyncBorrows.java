package io.thriftnio.pool;

import io.thriftnio.core.internal.NamedThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Borrowing for the async pools without blocking the caller. A call first tries to take a free
 * connection on its own thread ({@link Source#tryNow}: no wait, no connect, no thread hop); when
 * there is none, or calls already wait, it joins a bounded queue ({@link
 * PoolConfig#borrowQueueCapacity()}) as a future. Waiters are served in arrival order from {@link
 * #dispatch()}, which the pool calls whenever a connection frees or opens, and by a few connector
 * threads that run the pool's ordinary borrow ({@link Source#borrow}: connect, or wait for a
 * release) for the head of the queue. A waiter fails with {@link PoolTimeoutException} after {@link
 * PoolConfig#borrowTimeout()} (and stops counting at once, without a search: {@link WaiterQueue}),
 * and every waiter with a {@link PoolException} saying the pool is closed when the pool closes.
 *
 * <p>No lock is held while a future completes or the pool is touched: the queue's lock guards only
 * the queue. {@link #dispatch()} is a trampoline: a call that completes inside it and frees its
 * connection at once re-enters only to ask for another round, so chains of calls issued from
 * callbacks do not grow the stack.
 *
 * @param <T> what a borrow yields
 */
final class AsyncBorrows<T> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AsyncBorrows.class);

  /** Connector threads per pool: connects run in parallel up to this, off every caller. */
  static final int CONNECTORS = 4;

  /** The pool behind the queue. */
  public interface Source<T> {
    /**
     * A free connection now, or {@code null}; never waits nor connects. Looks at {@code preferred}
     * first when not null and up, and at {@code avoid} only when no other endpoint can serve;
     * reports the endpoints it looked at to {@code chosen}.
     */
    T tryNow(
        InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
        throws TException;

    /**
     * The pool's ordinary borrow: may connect and wait up to the borrow timeout; tries {@code
     * preferred} first when not null and up.
     */
    T borrow(InetSocketAddress preferred) throws TException;

    /** A connection borrowed for a waiter that has gone (timed out, pool closed): give it back. */
    void giveBack(T borrowed);

    /** The pool's state, for errors. */
    PoolStats stats();

    /** The endpoint to name in a timeout: the only one, or {@code null} with several. */
    InetSocketAddress soleEndpoint();

    /** The latest failure of an endpoint that is down, or {@code null}: what a timeout names. */
    default Throwable lastDownFailure() {
      return null;
    }

    /** A closed-pool error carrying the state. */
    PoolException closedException();

    /** A waiter gave up after the borrow timeout: counted in {@link PoolStats#timeouts()}. */
    void timedOut();

    /** A call starts (once per call, before its first borrow): it adds to the retry budget. */
    void callStarted();
  }

  /** Where the balancer sent a call that found nothing free: its connect goes there. */
  public static final class Choice implements Consumer<InetSocketAddress> {
    InetSocketAddress endpoint;
    private final InetSocketAddress avoid;

    /** The choice of a call's first attempt. */
    public Choice() {
      this(null);
    }

    /**
     * The choice of a call's retry: it goes elsewhere than {@code avoid} where it can, and does not
     * count as a new call for the retry budget.
     */
    public Choice(InetSocketAddress avoid) {
      this.avoid = avoid;
    }

    /** Where the call was sent: the endpoint of the connection it was given, or {@code null}. */
    InetSocketAddress sentTo;

    @Override
    public void accept(InetSocketAddress endpoint) {
      this.endpoint = endpoint;
    }
  }

  private final class Waiter extends WaiterQueue.Waiter {
    final CompletableFuture<T> future = new CompletableFuture<>();
    final long since = System.nanoTime();
    final InetSocketAddress preferred;
    volatile ScheduledFuture<?> timer; // set while adding it, under the queue's lock

    Waiter(InetSocketAddress preferred) {
      this.preferred = preferred;
    }
  }

  private final String name;
  private final PoolConfig config;
  private final PoolMetrics metrics;
  private final Source<T> source;
  private static final Consumer<InetSocketAddress> NOWHERE = endpoint -> {};
  private final WaiterQueue<Waiter> queue = new WaiterQueue<>();
  private final AtomicInteger dispatching = new AtomicInteger();
  private final AtomicInteger connectors = new AtomicInteger();
  private final ScheduledThreadPoolExecutor timer;
  private final ThreadPoolExecutor connect;
  private volatile boolean closed;

  public AsyncBorrows(String name, PoolConfig config, PoolMetrics metrics, Source<T> source) {
    this.name = name;
    this.config = config;
    this.metrics = metrics;
    this.source = source;
    this.timer =
        new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("thrift-nio-pool-timer"));
    timer.setRemoveOnCancelPolicy(true);
    timer.setKeepAliveTime(30, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true); // an idle pool keeps no thread
    this.connect =
        new ThreadPoolExecutor(
            CONNECTORS,
            CONNECTORS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            new NamedThreadFactory("thrift-nio-pool-connect"));
    connect.allowCoreThreadTimeOut(true);
  }

  /**
   * A free connection taken on the calling thread, or {@code null} if none is free or calls are
   * already waiting (they go first): then use {@link #later}, with the same {@code choice}.
   */
  public T now(Choice choice) throws TException {
    if (closed) {
      throw source.closedException();
    }
    if (choice.avoid == null) {
      source.callStarted();
    }
    return queue.live() > 0 ? null : source.tryNow(null, choice.avoid, choice);
  }

  /**
   * Waits in the queue: the future completes with a connection, or fails with a {@link
   * PoolTimeoutException}, a connect failure, or at once with a {@link PoolException} when the
   * queue is full. Callbacks may run on the thread that frees a connection (an IO thread).
   */
  public CompletableFuture<T> later(Choice choice) {
    Waiter w = new Waiter(choice.endpoint);
    int max = config.borrowQueueCapacity();
    long nanos = config.borrowTimeout().toNanos();
    // The timer is scheduled under the queue's lock: timers fire in arrival order, and expired
    // waiters leave from the head.
    boolean added =
        queue.add(
            w,
            max,
            nanos > 0
                ? q -> q.timer = timer.schedule(() -> expire(q), nanos, TimeUnit.NANOSECONDS)
                : q -> {});
    if (!added) {
      w.future.completeExceptionally(
          closed
              ? source.closedException()
              : new PoolException(
                  name
                      + ": too many calls waiting for a connection: the queue is full at borrowQueueCapacity="
                      + max
                      + " ("
                      + source.stats().gauges()
                      + ")",
                  null));
      return w.future;
    }
    dispatch();
    return w.future;
  }

  /** Calls waiting now: in the queue, or taken by a connector and not yet served. */
  public int waiting() {
    return queue.waiting();
  }

  /**
   * Serves waiters from free connections in arrival order, and starts a connector when some are
   * left. Call it whenever a connection frees or opens; cheap when nobody waits.
   */
  public void dispatch() {
    if (queue.live() == 0 || dispatching.getAndIncrement() != 0) {
      return;
    }
    do {
      serveFromFree();
    } while (dispatching.decrementAndGet() != 0);
    if (queue.live() > 0 && !closed) {
      startConnector();
    }
  }

  private void serveFromFree() {
    while (queue.live() > 0 && !closed) {
      Waiter head = queue.peek();
      if (head == null) {
        return;
      }
      T t;
      try {
        // Where the balancer sent the head: serving it from another endpoint would undo the choice.
        t = source.tryNow(head.preferred, null, NOWHERE);
      } catch (TException | RuntimeException e) {
        // The pool cannot lend at all (closed, no endpoint up): the head waiter hears why.
        fail(queue.poll(), e);
        continue;
      }
      if (t == null) {
        return;
      }
      hand(t);
    }
  }

  /** Gives {@code t} to the head waiter, or back to the pool when nobody waits any more. */
  private void hand(T t) {
    while (true) {
      Waiter w = queue.poll();
      if (w == null) {
        source.giveBack(t);
        return;
      }
      if (give(w, t)) {
        return;
      }
    }
  }

  /** Completes {@code w} with {@code t}; {@code false} if it had timed out or failed already. */
  private boolean give(Waiter w, T t) {
    if (!w.settle()) {
      return false;
    }
    // Counted as waiting no more before its future completes: the completion may run the whole
    // call, and the caller's next one must not find this place still taken.
    queue.settled(w);
    cancelTimer(w);
    w.future.complete(t);
    return true;
  }

  private void cancelTimer(Waiter w) {
    ScheduledFuture<?> timer = w.timer; // set before any thread could take w off the queue
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private void fail(Waiter w, Throwable e) {
    if (w != null && w.settle()) {
      queue.settled(w);
      cancelTimer(w);
      w.future.completeExceptionally(e);
    }
  }

  private void startConnector() {
    while (true) {
      int n = connectors.get();
      if (n >= Math.min(CONNECTORS, queue.live())) {
        return;
      }
      if (connectors.compareAndSet(n, n + 1)) {
        break;
      }
    }
    try {
      connect.execute(this::connectForWaiters);
    } catch (RuntimeException e) {
      connectors.decrementAndGet(); // shut down: close() fails the waiters
    }
  }

  /**
   * On a connector thread: takes the head of the queue and runs the pool's ordinary borrow for it
   * (connect, or wait for a release), until the queue is empty. One connect per waiter taken, so a
   * burst opens no more connections than it has waiters; a connection that can carry more calls
   * serves the next ones through {@link #dispatch()}.
   */
  private void connectForWaiters() {
    try {
      while (queue.live() > 0 && !closed) {
        if (Thread.interrupted()) {
          // A user's connect code interrupted this thread, which is ours and serves every waiter:
          // the next connect must not fail for it. close() interrupts it too, and ends the loop.
          log.debug("{}: a connect left its thread interrupted; cleared", name);
          continue;
        }
        Waiter w = queue.take(); // it counts as waiting until it settles
        if (w == null) {
          return;
        }
        serveTaken(w);
        dispatch(); // a new shared connection may carry more than one waiter
      }
    } finally {
      connectors.decrementAndGet();
      if (queue.live() > 0 && !closed) {
        startConnector(); // a waiter joined as this connector left
      }
    }
  }

  /** Borrows for {@code w}, taken off the queue, until it is served, fails or times out. */
  private void serveTaken(Waiter w) {
    while (!w.isSettled()) {
      if (closed) {
        fail(w, source.closedException());
        return;
      }
      T t;
      try {
        t = source.borrow(w.preferred);
      } catch (PoolTimeoutException e) {
        if (config.borrowTimeout().isZero()) {
          fail(w, e); // no timer: a waiter that cannot have a connection now fails
        }
        continue; // else its own timer fails it; the pool's wait ended first
      } catch (TException | RuntimeException e) {
        fail(w, closed ? source.closedException() : e); // as a blocking caller would have seen
        return;
      }
      if (!give(w, t)) {
        hand(t); // it timed out meanwhile: the next waiter, or the pool
      }
      return;
    }
  }

  private void expire(Waiter w) {
    if (!w.settle()) {
      return; // served or failed first
    }
    queue.settled(w); // stops counting now, without a search (a connector may hold it instead)
    Duration waited = Duration.ofNanos(System.nanoTime() - w.since);
    InetSocketAddress endpoint = source.soleEndpoint();
    PoolTimeoutException timeout =
        new PoolTimeoutException(endpoint, waited, source.stats(), source.lastDownFailure());
    source.timedOut();
    metrics.borrowTimedOut(endpoint, waited);
    w.future.completeExceptionally(timeout);
  }

  /**
   * Fails every waiter with a {@link PoolException} saying the pool is closed and stops the
   * threads. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    List<Waiter> all = queue.close();
    timer.shutdownNow();
    connect.shutdownNow();
    if (!all.isEmpty()) {
      PoolException e = source.closedException();
      for (Waiter w : all) {
        fail(w, e);
      }
      log.debug("{}: closed with {} calls waiting", name, all.size());
    }
  }
}
