package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.function.BiConsumer;
import org.apache.commons.pool2.BaseKeyedPooledObjectFactory;
import org.apache.commons.pool2.DestroyMode;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commons-pool2 object factory of an {@link EndpointPool}: opens a connection to the endpoint
 * pool2 asks for (a failure marks the endpoint down and becomes a {@link ConnectFailedException}),
 * validates idle ones without throwing, and closes destroyed ones quietly, counting each in the
 * pool's {@link EndpointPoolStats}. While {@link #idleOnly} is set on a thread, it refuses to
 * connect, so that a borrow on that thread only takes an idle connection.
 *
 * @param <T> the pooled connection
 */
final class EndpointPoolFactory<T> extends BaseKeyedPooledObjectFactory<InetSocketAddress, T> {
  private static final Logger log = LoggerFactory.getLogger(EndpointPoolFactory.class);

  /**
   * Set while a borrow may only take an idle connection: the factory then refuses to connect, so
   * that pool2's borrow returns at once.
   */
  static final ThreadLocal<Boolean> idleOnly = new ThreadLocal<>();

  /** The factory's refusal while {@link #idleOnly} is set; no stack trace, it is not an error. */
  static final class WouldConnect extends Exception {
    private static final long serialVersionUID = 1L;

    WouldConnect() {
      super("a connect is needed", null, false, false);
    }
  }

  private final String name;
  private final EndpointSource source;
  private final EndpointSelector selector;
  private final EndpointPool.Connections<T> connections;
  private final PoolMetrics metrics;
  private final EndpointPoolStats stats;
  private final BiConsumer<InetSocketAddress, T> closedUnderUs;
  private final ConnectionAges<T> ages;

  /**
   * @param closedUnderUs told when a connection this factory opened closes by itself
   * @param ages told of each connection opened and destroyed
   */
  EndpointPoolFactory(
      String name,
      EndpointSource source,
      EndpointSelector selector,
      EndpointPool.Connections<T> connections,
      PoolMetrics metrics,
      EndpointPoolStats stats,
      BiConsumer<InetSocketAddress, T> closedUnderUs,
      ConnectionAges<T> ages) {
    this.name = name;
    this.source = source;
    this.selector = selector;
    this.connections = connections;
    this.metrics = metrics;
    this.stats = stats;
    this.closedUnderUs = closedUnderUs;
    this.ages = ages;
  }

  @Override
  public T create(InetSocketAddress endpoint) throws ConnectFailedException, WouldConnect {
    if (idleOnly.get() != null) {
      throw new WouldConnect();
    }
    if (!selector.contains(endpoint)) {
      // It left the source between the choice and the connect: the borrow goes elsewhere.
      throw new ConnectFailedException(
          new PoolException(
              name + ": endpoint " + Names.endpoint(endpoint) + " left " + source, null));
    }
    T t;
    try {
      t = connections.open(endpoint);
    } catch (Exception | Error e) {
      stats.connectFailures.increment();
      metrics.connectFailed(endpoint, e);
      EndpointState s = selector.state(endpoint);
      if (s != null && !Thread.currentThread().isInterrupted()) {
        // An interrupt aborts a connect (ClosedByInterruptException); that says nothing about
        // the endpoint, so it is not marked down for it.
        s.connectFailed(e);
      }
      throw new ConnectFailedException(e);
    }
    stats.created.increment();
    metrics.created(endpoint);
    ages.opened(t);
    connections.whenClosed(t, () -> closedUnderUs.accept(endpoint, t));
    return t;
  }

  @Override
  public PooledObject<T> wrap(T value) {
    return new DefaultPooledObject<>(value);
  }

  @Override
  public boolean validateObject(InetSocketAddress endpoint, PooledObject<T> p) {
    boolean ok;
    try {
      ok = connections.validate(p.getObject());
    } catch (RuntimeException e) {
      log.warn("{}: validation of a connection to {} threw", name, Names.endpoint(endpoint), e);
      ok = false;
    }
    if (!ok) {
      stats.invalidated.increment();
      metrics.invalidated(endpoint, null);
    }
    return ok;
  }

  @Override
  public void destroyObject(InetSocketAddress endpoint, PooledObject<T> p, DestroyMode mode) {
    try {
      connections.close(p.getObject());
    } catch (RuntimeException e) {
      log.warn("{}: closing a connection to {} threw", name, Names.endpoint(endpoint), e);
    }
    ages.closed(p.getObject());
    stats.destroyed.increment();
    metrics.destroyed(endpoint);
  }
}
