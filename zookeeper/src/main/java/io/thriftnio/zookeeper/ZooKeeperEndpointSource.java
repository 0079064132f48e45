package io.thriftnio.zookeeper;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.pool.EndpointSource;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.details.ServiceCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers registered in ZooKeeper under one service name, in Curator's service-discovery format
 * (by {@link ZooKeeperRegistration} or by any Curator {@code ServiceDiscovery}): every enabled
 * instance under {@code BASE_PATH/SERVICE_NAME}, as its address and port, watched for changes.
 *
 * <pre>{@code
 * ThriftClientPool<BenchService.Client> pool = ThriftClientPool.builder(BenchService.Client::new)
 *     .endpointSource(ZooKeeperEndpointSource.of(curator, "/services", "bench"))
 *     .build();
 * }</pre>
 *
 * <p>{@link #start} loads the current set, waiting up to the {@linkplain #of(CuratorFramework,
 * String, String, Duration) start timeout} for ZooKeeper; past it the pool starts with no endpoint
 * and fills when the load completes. While the connection to ZooKeeper is suspended or its session
 * lost, the pool keeps the last set it heard: the servers are most likely still there, and one that
 * is not fails its connects and is marked down. Changes resume once Curator has reconnected and
 * reloaded. The {@link CuratorFramework} belongs to the caller: it must be started, and it is not
 * closed here.
 *
 * <p>The listener runs under none of the source's locks, one call at a time, and hears the sets in
 * the order they were read: a newer set read while it runs is delivered next (one read meanwhile
 * replaces another not yet delivered), on the thread that is delivering.
 */
public final class ZooKeeperEndpointSource implements EndpointSource {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperEndpointSource.class);

  /** The default start timeout: 10 seconds. */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(10);

  private final CuratorFramework curator;
  private final String basePath;
  private final String serviceName;
  private final Duration startTimeout;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Guards the books of the publications (the listener, the set read last, the set waiting to be
   * delivered, whether a thread is delivering); never held while the listener runs.
   */
  private final Object lock = new Object();

  private volatile boolean connected = true;
  private volatile ServiceDiscovery<Object> discovery; // set once in start()
  private volatile ServiceCache<Object> cache; // set once in start()

  @GuardedBy("lock")
  private Consumer<List<InetSocketAddress>> listener;

  /**
   * {@link #start} has waited for the first load (or its timeout): until then a change the cache
   * reports is not published, start's own read after the load is the first set. Without it a
   * connection event during the load published the cache still empty as the first set (seen in CI,
   * under load: the listener heard 0 endpoints, then 1).
   */
  @GuardedBy("lock")
  private boolean firstLoadWaited;

  @GuardedBy("lock")
  private Set<InetSocketAddress> last;

  /** The newest set read and not yet handed to the listener; null if none waits. */
  @GuardedBy("lock")
  private List<InetSocketAddress> undelivered;

  /** A thread is handing sets to the listener: others leave theirs to it. */
  @GuardedBy("lock")
  private boolean delivering;

  private ZooKeeperEndpointSource(
      CuratorFramework curator, String basePath, String serviceName, Duration startTimeout) {
    this.curator = curator;
    this.basePath = basePath;
    this.serviceName = serviceName;
    this.startTimeout = startTimeout;
  }

  /**
   * The source, with the {@link #DEFAULT_START_TIMEOUT} (10 s); nothing is read until a pool starts
   * it.
   *
   * @param curator a started Curator client; not closed by the source
   * @param basePath where services are registered, e.g. {@code "/services"}
   * @param serviceName the service whose servers to use, e.g. {@code "bench"}
   * @return the source
   * @throws IllegalArgumentException naming an argument refused
   */
  public static ZooKeeperEndpointSource of(
      CuratorFramework curator, String basePath, String serviceName) {
    return of(curator, basePath, serviceName, DEFAULT_START_TIMEOUT);
  }

  /**
   * The source; nothing is read until a pool starts it.
   *
   * @param curator a started Curator client; not closed by the source
   * @param basePath where services are registered, e.g. {@code "/services"}
   * @param serviceName the service whose servers to use, e.g. {@code "bench"}
   * @param startTimeout how long {@link #start} (so the pool's {@code build()}) waits for the first
   *     load; {@code >= 0}
   * @return the source
   * @throws IllegalArgumentException naming an argument refused
   */
  public static ZooKeeperEndpointSource of(
      CuratorFramework curator, String basePath, String serviceName, Duration startTimeout) {
    return new ZooKeeperEndpointSource(
        Checks.notNull("curator", curator),
        Paths.basePath(basePath),
        Paths.serviceName(serviceName),
        Checks.nonNegative("startTimeout", startTimeout));
  }

  @Override
  public void start(Consumer<List<InetSocketAddress>> listener) {
    Checks.notNull("listener", listener);
    if (closed.get() || !started.compareAndSet(false, true)) {
      throw new IllegalStateException(this + " was started or closed (expected: one pool each)");
    }
    synchronized (lock) {
      this.listener = listener;
    }
    discovery =
        ServiceDiscoveryBuilder.builder(Object.class)
            .client(curator)
            .basePath(basePath)
            .watchInstances(false)
            .build();
    cache = discovery.serviceCacheBuilder().name(serviceName).build();
    cache.addListener(new Changes());
    CountDownLatch loaded;
    try {
      discovery.start();
      loaded = cache.startImmediate();
    } catch (Exception e) {
      close();
      throw new IllegalStateException(this + ": could not start: " + e, e);
    }
    try {
      if (!loaded.await(startTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
        log.warn(
            "{}: ZooKeeper did not answer within {} ms; the pool starts with no endpoint",
            this,
            startTimeout.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // restored; the set arrives when the load completes
    }
    synchronized (lock) {
      firstLoadWaited = true;
    }
    publish();
  }

  /** Reads the cache and tells the pool when the set changed. */
  private void publish() {
    synchronized (lock) {
      if (closed.get() || listener == null || !firstLoadWaited) {
        return; // before start's own read: that one is the first set
      }
      if (!connected) {
        return; // keep the last set until Curator has reconnected and reloaded
      }
      Set<InetSocketAddress> now = new LinkedHashSet<>();
      for (ServiceInstance<Object> i : cache.getInstances()) {
        if (i.getAddress() == null || i.getPort() == null || Boolean.FALSE.equals(i.isEnabled())) {
          continue; // not a server to call: no address or port, or disabled by its owner
        }
        now.add(new InetSocketAddress(i.getAddress(), i.getPort()));
      }
      if (now.equals(last)) {
        return;
      }
      if (now.isEmpty() && last != null && !last.isEmpty()) {
        // After an outage longer than the servers' sessions, ZooKeeper deletes every node at once
        // and the servers register again a moment later: an empty set is far likelier that than
        // a service with no server left, and publishing it would fail every call meanwhile.
        log.warn("{}: no server registered; keeping the last set {}", this, last);
        return;
      }
      log.info("{}: now {} (was {})", this, now, last == null ? "-" : last);
      last = now;
      undelivered = List.copyOf(now);
      if (delivering) {
        return; // the thread delivering hands it over next
      }
      delivering = true;
    }
    deliver();
  }

  /**
   * Hands the waiting sets to the listener, outside the lock, until none waits. One thread at a
   * time: the order of the reads is kept.
   */
  private void deliver() {
    while (true) {
      List<InetSocketAddress> next;
      Consumer<List<InetSocketAddress>> to;
      synchronized (lock) {
        next = closed.get() ? null : undelivered;
        undelivered = null;
        if (next == null) {
          delivering = false;
          return;
        }
        to = listener;
      }
      try {
        to.accept(next);
      } catch (RuntimeException e) {
        log.warn("{}: the pool failed to take the new endpoints {}", this, next, e);
      } catch (Error e) {
        synchronized (lock) {
          delivering = false; // the next read delivers
        }
        throw e;
      }
    }
  }

  /** Cache changes and connection states, on Curator's threads. */
  private final class Changes implements ServiceCacheListener {
    @Override
    public void cacheChanged() {
      publish();
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
      switch (state) {
        case SUSPENDED:
        case LOST:
          connected = false;
          log.warn(
              "{}: ZooKeeper connection {}; keeping the last set",
              ZooKeeperEndpointSource.this,
              state);
          break;
        case CONNECTED:
        case RECONNECTED:
          connected = true;
          log.info("{}: ZooKeeper connection {}", ZooKeeperEndpointSource.this, state);
          publish(); // what changed meanwhile, as far as the cache has reloaded
          break;
        default:
          break;
      }
    }
  }

  /** The addresses published last; for tests. */
  List<InetSocketAddress> current() {
    synchronized (lock) {
      return last == null ? List.of() : new ArrayList<>(last);
    }
  }

  /** Stops watching. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      if (cache != null) {
        cache.close();
      }
    } catch (Exception e) {
      log.warn("{}: closing the cache threw", this, e);
    }
    try {
      if (discovery != null) {
        discovery.close();
      }
    } catch (Exception e) {
      log.warn("{}: closing the discovery threw", this, e);
    }
  }

  @Override
  public String toString() {
    return "ZooKeeper " + basePath + "/" + serviceName;
  }
}
