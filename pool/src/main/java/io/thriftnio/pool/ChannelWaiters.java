package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Consumer;
import org.apache.thrift.TException;

/**
 * The async queue's view of a {@link SharedChannels} pool ({@link AsyncBorrows.Source}): a slot now
 * on the caller's thread without waiting or connecting, or a borrow on a connector thread that may
 * connect and wait.
 */
final class ChannelWaiters implements AsyncBorrows.Source<Conn> {
  private final SharedChannels pool;
  private final ChannelBorrows borrows;
  private final ChannelCounters counters;

  ChannelWaiters(SharedChannels pool, ChannelBorrows borrows, ChannelCounters counters) {
    this.pool = pool;
    this.borrows = borrows;
    this.counters = counters;
  }

  @Override
  public Conn tryNow(
      InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
      throws TException {
    return pool.selector.peek(
        pool.name(),
        endpoint -> {
          EndpointChannels books = borrows.booksOf(endpoint);
          Conn c = borrows.tryFrom(books);
          return c == null && endpoint.isUp() && borrows.anyOwesLateReplies()
              ? borrows.elsewhere(books, avoid)
              : c;
        },
        pool::gauges,
        preferred,
        avoid,
        chosen);
  }

  @Override
  public Conn borrow(InetSocketAddress preferred) throws TException {
    return pool.selector.borrow(
        pool.name(),
        endpoint -> borrows.acquireFrom(borrows.booksOf(endpoint), false),
        pool::gauges,
        preferred);
  }

  @Override
  public void giveBack(Conn lent) {
    pool.giveBack(lent); // counted when taken, but no call used it
  }

  @Override
  public PoolStats stats() {
    return pool.stats();
  }

  @Override
  public Throwable lastDownFailure() {
    return pool.selector.lastDownFailure();
  }

  @Override
  public InetSocketAddress soleEndpoint() {
    List<EndpointState> all = pool.selector.all();
    return all.size() == 1 ? all.get(0).address : null;
  }

  @Override
  public PoolClosedException closedException() {
    return pool.closedException();
  }

  @Override
  public void timedOut() {
    counters.timeouts.increment();
  }

  @Override
  public void callStarted() {
    pool.selector.budget().deposit();
  }
}
