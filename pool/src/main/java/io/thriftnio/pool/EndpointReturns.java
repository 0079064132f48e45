package io.thriftnio.pool;

import java.net.InetSocketAddress;
import org.apache.commons.pool2.DestroyMode;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How connections leave their borrowers in an {@link EndpointPool}: given back healthy (and closed
 * if their endpoint left the source meanwhile), destroyed after a failed call, or dropped while
 * idle when they close by themselves. Each then runs the pool's {@link #onFree(Runnable)} action,
 * from which the async pools serve their waiting calls. Takes no lock of its own: pool2 keeps its
 * own, and the lent set is concurrent.
 *
 * @param <T> the pooled connection
 */
final class EndpointReturns<T> {
  // Under the pool's name: what a user filters on is the pool, not how it is split.
  private static final Logger log = LoggerFactory.getLogger(EndpointPool.class);

  private final EndpointPoolBooks<T> books;
  private final String name;
  private final GenericKeyedObjectPool<InetSocketAddress, T> pool;
  private volatile Runnable onFree = () -> {};

  EndpointReturns(EndpointPoolBooks<T> books) {
    this.books = books;
    this.name = books.name();
    this.pool = books.pool();
  }

  /** See {@link EndpointPool#onFree(Runnable)}. */
  void onFree(Runnable action) {
    this.onFree = action;
  }

  /** See {@link EndpointPool#release(EndpointPool.Borrowed)}. */
  void release(EndpointPool.Borrowed<T> b) {
    if (books.ages().over(b.connection)) {
      retire(b, true);
      return;
    }
    if (books.selector().isDraining(b.endpoint)) {
      retire(b, false); // its server drains and closes it once quiet: no call is sent on it
      return;
    }
    books.lent().remove(b.connection);
    try {
      pool.returnObject(b.endpoint, b.connection);
    } catch (RuntimeException e) {
      log.warn("{}: could not return a connection to {}", name, Names.endpoint(b.endpoint), e);
      books.connections().close(b.connection);
    }
    if (!books.selector().contains(b.endpoint)) {
      // The endpoint left: the connection is closed unless a borrower waiting for this endpoint
      // took it. Checked after the return, so an update racing with it cannot leave it idle.
      pool.clear(b.endpoint);
    }
    onFree.run();
  }

  /**
   * Destroys a healthy connection between two calls, past its age ({@code aged}) or to an endpoint
   * whose server drains, so that no call fails for it: the next borrow opens another, to an
   * endpoint chosen the normal way.
   */
  void retire(EndpointPool.Borrowed<T> b, boolean aged) {
    books.lent().remove(b.connection);
    if (aged) {
      books.stats().aged.increment();
    }
    try {
      pool.invalidateObject(b.endpoint, b.connection, DestroyMode.NORMAL);
    } catch (Exception e) {
      log.warn("{}: could not retire a connection to {}", name, Names.endpoint(b.endpoint), e);
      books.connections().close(b.connection);
    }
    onFree.run();
  }

  /** See {@link EndpointPool#giveBack(EndpointPool.Borrowed)}. */
  void giveBack(EndpointPool.Borrowed<T> b) {
    books.stats().borrowed.decrement();
    release(b);
  }

  /** See {@link EndpointPool#invalidate(EndpointPool.Borrowed, Throwable)}. */
  void invalidate(EndpointPool.Borrowed<T> b, Throwable cause) {
    books.lent().remove(b.connection);
    books.stats().invalidated.increment();
    books.metrics().invalidated(b.endpoint, cause);
    try {
      pool.invalidateObject(b.endpoint, b.connection, DestroyMode.NORMAL);
    } catch (Exception e) {
      log.warn("{}: could not destroy a connection to {}", name, Names.endpoint(b.endpoint), e);
      books.connections().close(b.connection);
    }
    onFree.run();
  }

  /**
   * A connection closed by itself (the peer closed or reset it, a timeout): if idle, it leaves the
   * pool now, before a borrow finds it. A lent one is left to its borrower, whose call fails and
   * destroys it.
   */
  void closedUnderUs(InetSocketAddress endpoint, T t) {
    if (books.owner().isClosed() || books.lent().contains(t)) {
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
    books.stats().invalidated.increment();
    books.metrics().invalidated(endpoint, null);
    onFree.run();
  }
}
