package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.apache.commons.pool2.DestroyMode;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.thrift.TException;

/**
 * The borrow paths of an {@link EndpointPool}: the endpoint chosen by its {@link EndpointSelector},
 * then a connection from pool2 for that endpoint, waiting up to the borrow timeout (or less, for a
 * call whose deadline is nearer), or only an idle one for the async pools' fast path. pool2's
 * failures become typed errors that carry the pool state; a connection handed out is recorded as
 * lent. Takes no lock of its own: pool2 and the selector keep theirs.
 *
 * @param <T> the pooled connection
 */
final class EndpointBorrows<T> {
  private final EndpointPoolBooks<T> books;
  private final EndpointPool<T> owner;
  private final String name;
  private final PoolConfig config;
  private final GenericKeyedObjectPool<InetSocketAddress, T> pool;
  private final EndpointSelector selector;

  EndpointBorrows(EndpointPoolBooks<T> books, PoolConfig config) {
    this.books = books;
    this.owner = books.owner();
    this.name = books.name();
    this.config = config;
    this.pool = books.pool();
    this.selector = books.selector();
  }

  /** See {@link EndpointPool#borrow()}. */
  EndpointPool.Borrowed<T> borrow() throws TException {
    failIfInterrupted();
    owner.callStarted();
    return selector.borrow(
        name, e -> borrowFrom(e, true, config.borrowTimeout()), () -> owner.stats().gauges());
  }

  /** See {@link EndpointPool#borrow(Duration)}. */
  EndpointPool.Borrowed<T> borrow(Duration maxWait) throws TException {
    failIfInterrupted();
    owner.callStarted();
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrow(name, e -> borrowFrom(e, true, wait), () -> owner.stats().gauges());
  }

  /** See {@link EndpointPool#borrowForRetry(InetSocketAddress, Duration)}. */
  EndpointPool.Borrowed<T> borrowForRetry(InetSocketAddress avoid, Duration maxWait)
      throws TException {
    failIfInterrupted();
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrowAvoiding(
        name, e -> borrowFrom(e, true, wait), () -> owner.stats().gauges(), avoid);
  }

  /** See {@link EndpointPool#borrowElsewhere(Collection, Duration)}. */
  EndpointPool.Borrowed<T> borrowElsewhere(
      Collection<InetSocketAddress> refusedBy, Duration maxWait) throws TException {
    failIfInterrupted();
    Duration wait = min(maxWait, config.borrowTimeout());
    return selector.borrowExcluding(
        name, e -> borrowFrom(e, true, wait), () -> owner.stats().gauges(), refusedBy);
  }

  /** See {@link EndpointPool#borrow(InetSocketAddress)}. */
  EndpointPool.Borrowed<T> borrow(InetSocketAddress preferred) throws TException {
    failIfInterrupted();
    return selector.borrow(
        name,
        e -> borrowFrom(e, false, config.borrowTimeout()),
        () -> owner.stats().gauges(),
        preferred);
  }

  /** See {@link EndpointPool#tryBorrowNow(InetSocketAddress, InetSocketAddress, Consumer)}. */
  EndpointPool.Borrowed<T> tryBorrowNow(
      InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
      throws TException {
    if (owner.isClosed()) {
      throw owner.closedException();
    }
    return selector.peek(
        name, this::tryIdle, () -> owner.stats().gauges(), preferred, avoid, chosen);
  }

  private void failIfInterrupted() throws PoolException {
    if (Thread.currentThread().isInterrupted()) {
      // An interrupted thread would close the channels it touches (ClosedByInterruptException)
      // and take a refused connect for a dead endpoint. Fail now; the flag stays set.
      throw new PoolException(
          name + ": interrupted before borrowing (" + owner.stats().gauges() + ")",
          new InterruptedException());
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
  }

  private EndpointPool.Borrowed<T> tryIdle(EndpointState endpoint) throws TException {
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
  private EndpointPool.Borrowed<T> borrowFrom(
      EndpointState endpoint, boolean countTimeout, Duration wait)
      throws TException, ConnectFailedException {
    if (owner.isClosed()) {
      throw owner.closedException();
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
      if (owner.isClosed()) {
        throw owner.closedException();
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
        books.stats().timeouts.increment();
        books.metrics().borrowTimedOut(endpoint.address, waited);
      }
      throw new PoolTimeoutException(
          endpoint.address, waited, owner.stats(), selector.lastDownFailure());
    } catch (InterruptedException e) {
      if (owner.isClosed()) {
        // close() interrupts the borrowers it releases; that interrupt is the pool's own.
        throw owner.closedException();
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
        + owner.stats().gauges()
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
      if (owner.isClosed() || pool.isClosed()) {
        return owner.closedException();
      }
      return new PoolException(name + ": borrow failed: " + e.getMessage(), e);
    }
    if (e instanceof RuntimeException r) {
      throw r;
    }
    return new PoolException(name + ": borrow failed: " + e, e);
  }

  private EndpointPool.Borrowed<T> lend(EndpointState endpoint, T t, long start) throws TException {
    books.lent().add(t);
    if (owner.isClosed()) {
      // close() ran while this borrow completed: the connection is not lent after all.
      books.lent().remove(t);
      try {
        pool.invalidateObject(endpoint.address, t, DestroyMode.NORMAL);
      } catch (Exception e) {
        books
            .connections()
            .close(t); // pool2 would not destroy it (closed meanwhile): close it here
      }
      throw owner.closedException();
    }
    books.stats().borrowed.increment();
    books.metrics().borrowed(endpoint.address, Duration.ofNanos(System.nanoTime() - start));
    return new EndpointPool.Borrowed<>(endpoint.address, t);
  }
}
