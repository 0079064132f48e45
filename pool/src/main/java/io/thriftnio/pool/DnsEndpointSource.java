package io.thriftnio.pool;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoints behind a DNS name, resolved again every interval: what {@link
 * EndpointSource#dns(String, int, Duration)} returns, described there.
 */
final class DnsEndpointSource implements EndpointSource {
  private static final Logger log = LoggerFactory.getLogger(DnsEndpointSource.class);

  /** Default interval of {@link #of(String, int)}: 5 seconds. */
  static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

  /** Resolves a host name to its addresses; {@link #systemResolver()} asks the JVM. */
  @FunctionalInterface
  interface Resolver {
    /**
     * Resolves {@code host}.
     *
     * @param host the name to resolve
     * @return every address of {@code host}, in any order
     * @throws UnknownHostException if the name does not resolve now
     */
    List<InetAddress> resolve(String host) throws UnknownHostException;
  }

  /** {@code InetAddress.getAllByName}: the JVM's resolver, with its cache. */
  static Resolver systemResolver() {
    return host -> List.of(InetAddress.getAllByName(host));
  }

  private final String host;
  private final int port;
  private final Duration interval;
  private final Resolver resolver;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Makes the books of the last resolution visible to the next. Resolutions never overlap (the
   * first runs in {@link #start} before the timer exists; the timer has one thread and a fixed
   * delay), so the resolver and the listener run after it is released, and the sets reach the
   * listener in the order they were resolved.
   */
  private final Object lock = new Object();

  private volatile ScheduledThreadPoolExecutor timer;

  /** Null before the first success. */
  @GuardedBy("lock")
  private Set<InetSocketAddress> last;

  @GuardedBy("lock")
  private int failuresInARow;

  private DnsEndpointSource(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.interval = b.interval;
    this.resolver = b.resolver;
  }

  /**
   * The endpoints of {@code host}, resolved again every {@link #DEFAULT_INTERVAL} (5 s).
   *
   * @param host the name to resolve, not empty
   * @param port the port every address serves on, 1 to 65535
   * @return the source, not started
   * @throws io.thriftnio.core.settings.SettingException naming the argument refused
   */
  static DnsEndpointSource of(String host, int port) {
    return builder(host, port).build();
  }

  /**
   * The endpoints of {@code host}, resolved again every {@code interval}.
   *
   * @param host the name to resolve, not empty
   * @param port the port every address serves on, 1 to 65535
   * @param interval how often to resolve again, {@code > 0}
   * @return the source, not started
   * @throws io.thriftnio.core.settings.SettingException naming the argument refused
   */
  static DnsEndpointSource of(String host, int port, Duration interval) {
    return builder(host, port).interval(interval).build();
  }

  /** A builder: {@link #of} with the tests' resolver. */
  static Builder builder(String host, int port) {
    Checks.notNull("host", host);
    if (host.isBlank()) {
      throw new SettingException("host", "\"" + host + "\"", "a host name");
    }
    if (port < 1 || port > 65535) {
      throw new SettingException("port", port, "1 to 65535");
    }
    return new Builder(host, port);
  }

  /**
   * Resolves the name once and publishes what it finds, then again every interval.
   *
   * @throws IllegalStateException if started before or closed
   */
  @Override
  public void start(Consumer<List<InetSocketAddress>> listener) {
    Checks.notNull("listener", listener);
    if (closed.get() || !started.compareAndSet(false, true)) {
      throw new IllegalStateException(this + " was started or closed (expected: one pool each)");
    }
    refresh(listener);
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("thrift-nio-dns"));
    t.setRemoveOnCancelPolicy(true);
    long every = interval.toNanos();
    t.scheduleWithFixedDelay(() -> refresh(listener), every, every, TimeUnit.NANOSECONDS);
    timer = t;
    if (closed.get()) {
      t.shutdownNow(); // close() ran meanwhile and saw no timer
    }
  }

  /** One resolution; publishes a changed set. Never throws: the timer would stop. */
  private void refresh(Consumer<List<InetSocketAddress>> listener) {
    if (closed.get()) {
      return;
    }
    Set<InetSocketAddress> now;
    try {
      now = resolve(); // the user's resolver: outside the lock
    } catch (UnknownHostException | RuntimeException e) {
      synchronized (lock) {
        failed(e);
      }
      return;
    }
    synchronized (lock) {
      if (failuresInARow > 0) {
        log.info("{} resolves again after {} failed resolution(s)", this, failuresInARow);
        failuresInARow = 0;
      }
      if (now.equals(last) || closed.get()) {
        return;
      }
      log.info(
          "{} now resolves to {} (was {})", this, names(now), last == null ? "-" : names(last));
      last = now;
    }
    try {
      listener.accept(List.copyOf(now)); // outside the lock, as EndpointSource says
    } catch (RuntimeException e) {
      log.warn("{}: the pool failed to take the new endpoints {}", this, names(now), e);
    }
  }

  private Set<InetSocketAddress> resolve() throws UnknownHostException {
    List<InetAddress> addresses = resolver.resolve(host);
    Set<InetSocketAddress> set = new LinkedHashSet<>();
    if (addresses != null) {
      for (InetAddress a : addresses) {
        if (a != null) {
          // Without the name: messages then tell the addresses apart by their IP.
          set.add(new InetSocketAddress(InetAddress.getByAddress(a.getAddress()), port));
        }
      }
    }
    if (set.isEmpty()) {
      throw new UnknownHostException(host + ": the resolver returned no address");
    }
    return set;
  }

  @GuardedBy("lock")
  private void failed(Exception e) {
    failuresInARow++;
    String kept = last == null ? "no endpoint yet" : "keeping " + names(last);
    if (failuresInARow == 1) {
      log.warn("{} failed to resolve ({}); {}", this, e.toString(), kept);
    } else {
      log.debug("{} failed to resolve {} times in a row ({}); {}", this, failuresInARow, e, kept);
    }
  }

  private static List<String> names(Set<InetSocketAddress> set) {
    List<String> names = new ArrayList<>();
    for (InetSocketAddress a : set) {
      names.add(Names.endpoint(a));
    }
    return names;
  }

  /** Stops resolving. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ScheduledThreadPoolExecutor t = timer;
    if (t != null) {
      t.shutdownNow();
    }
  }

  @Override
  public String toString() {
    return "DNS " + host + ":" + port + " every " + interval.toMillis() + "ms";
  }

  /** Builds a {@link DnsEndpointSource}. */
  static final class Builder {
    private final String host;
    private final int port;
    private Duration interval = DEFAULT_INTERVAL;
    private Resolver resolver = systemResolver();

    private Builder(String host, int port) {
      this.host = host;
      this.port = port;
    }

    /**
     * How long after one resolution the next one starts. Default {@link #DEFAULT_INTERVAL} (5 s).
     *
     * @param interval {@code > 0}
     * @return this builder
     */
    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    /** Resolves the name (tests give theirs). Default {@link #systemResolver()}. */
    Builder resolver(Resolver resolver) {
      this.resolver = resolver;
      return this;
    }

    /**
     * Builds the source; nothing is resolved until a pool starts it.
     *
     * @return the source
     * @throws IllegalArgumentException naming a value out of range
     */
    public DnsEndpointSource build() {
      Checks.positive("interval", interval);
      Checks.notNull("resolver", resolver);
      return new DnsEndpointSource(this);
    }
  }
}
