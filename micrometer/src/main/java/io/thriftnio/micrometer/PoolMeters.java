package io.thriftnio.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.thriftnio.pool.PoolMetrics;
import io.thriftnio.pool.PoolStats;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A pool's metrics in a {@link MeterRegistry}: the pool's events, as its {@link PoolMetrics}, and
 * its sizes, bound as gauges.
 *
 * <pre>{@code
 * PoolMeters meters = new PoolMeters(registry, "quotes");
 * ThriftClientPool<QuoteService.Client> pool =
 *     ThriftClientPool.builder(QuoteService.Client::new)
 *         .io(io)
 *         .endpoints(address)
 *         .metrics(meters)
 *         .build();
 * meters.bindStats(pool::stats).bindTo(registry);
 * }</pre>
 *
 * <p>Meters, each tagged {@code pool} (the name given); event meters also {@code endpoint} ({@code
 * host:port}):
 *
 * <table>
 *   <caption>meters</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code thrift.pool.borrow}</td><td>timer, tag {@code outcome} ({@code acquired},
 *       {@code timeout})</td><td>how long borrowers waited, connects included</td></tr>
 *   <tr><td>{@code thrift.pool.connections.created}</td><td>counter</td><td>connections opened</td></tr>
 *   <tr><td>{@code thrift.pool.connections.destroyed}</td><td>counter</td>
 *       <td>connections closed, for any reason</td></tr>
 *   <tr><td>{@code thrift.pool.connections.invalidated}</td><td>counter</td>
 *       <td>connections condemned after a failed call or validation</td></tr>
 *   <tr><td>{@code thrift.pool.connect.failures}</td><td>counter</td>
 *       <td>connects that failed (the endpoint is marked down)</td></tr>
 *   <tr><td>{@code thrift.pool.connections}</td><td>gauge, tag {@code state} ({@code active},
 *       {@code idle})</td><td>from {@link #bindStats}</td></tr>
 *   <tr><td>{@code thrift.pool.waiting}</td><td>gauge</td><td>borrowers waiting now, from {@link
 *       #bindStats}</td></tr>
 *   <tr><td>{@code thrift.pool.retries}</td><td>function counter, tag {@code outcome} ({@code
 *       sent}: retries and hedges the retry budget paid for; {@code refused}: retries the spent
 *       budget refused)</td><td>from {@link #bindStats}</td></tr>
 *   <tr><td>{@code thrift.pool.ejections}</td><td>function counter</td><td>endpoints taken out
 *       after consecutive call failures, from {@link #bindStats}</td></tr>
 *   <tr><td>{@code thrift.pool.connections.aged}</td><td>function counter</td><td>connections
 *       closed between calls for the pool's {@code maxConnectionAge} (also in {@code
 *       destroyed}), from {@link #bindStats}</td></tr>
 *   <tr><td>{@code thrift.pool.not.run}</td><td>function counter</td><td>calls a server refused
 *       without running them ({@code PoolStats.notRun}), each sent on to another endpoint when one
 *       was left, from {@link #bindStats}</td></tr>
 * </table>
 *
 * <p>Thread-safe; the event methods are called on the threads that cause the events and only look
 * meters up in the registry.
 */
public final class PoolMeters implements PoolMetrics {

  private final MeterRegistry registry;
  private final Tags tags;

  /**
   * @param registry where the meters go
   * @param pool the {@code pool} tag's value
   */
  public PoolMeters(MeterRegistry registry, String pool) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.tags = Tags.of("pool", Objects.requireNonNull(pool, "pool"));
  }

  /**
   * The pool's sizes as gauges, and its retries and ejections as function counters, read from
   * {@code stats} (for example {@code pool::stats}) when the registry publishes; the registry keeps
   * {@code stats} reachable.
   *
   * @param stats the pool's stats
   * @return a binder for the gauges and counters
   */
  public MeterBinder bindStats(Supplier<PoolStats> stats) {
    Objects.requireNonNull(stats, "stats");
    return r -> {
      Gauge.builder("thrift.pool.connections", stats, s -> s.get().active())
          .description("pooled connections by state")
          .tags(tags.and("state", "active"))
          .strongReference(true)
          .register(r);
      Gauge.builder("thrift.pool.connections", stats, s -> s.get().idle())
          .description("pooled connections by state")
          .tags(tags.and("state", "idle"))
          .strongReference(true)
          .register(r);
      Gauge.builder("thrift.pool.waiting", stats, s -> s.get().waiting())
          .description("borrowers waiting for a connection")
          .tags(tags)
          .strongReference(true)
          .register(r);
      FunctionCounter.builder("thrift.pool.retries", stats, s -> s.get().retries())
          .description("calls sent again, by the retry budget's decision")
          .tags(tags.and("outcome", "sent"))
          .register(r);
      FunctionCounter.builder("thrift.pool.retries", stats, s -> s.get().retriesRefused())
          .description("calls sent again, by the retry budget's decision")
          .tags(tags.and("outcome", "refused"))
          .register(r);
      FunctionCounter.builder("thrift.pool.ejections", stats, s -> s.get().ejections())
          .description("endpoints ejected after consecutive call failures")
          .tags(tags)
          .register(r);
      FunctionCounter.builder("thrift.pool.connections.aged", stats, s -> s.get().aged())
          .description("connections closed between calls for their maxConnectionAge")
          .tags(tags)
          .register(r);
      FunctionCounter.builder("thrift.pool.not.run", stats, s -> s.get().notRun())
          .description("calls a server refused without running them, sent on to another endpoint")
          .tags(tags)
          .register(r);
    };
  }

  @Override
  public void borrowed(InetSocketAddress endpoint, Duration wait) {
    borrowTimer(endpoint, "acquired").record(wait);
  }

  @Override
  public void borrowTimedOut(InetSocketAddress endpoint, Duration wait) {
    borrowTimer(endpoint, "timeout").record(wait);
  }

  @Override
  public void created(InetSocketAddress endpoint) {
    counter("thrift.pool.connections.created", endpoint).increment();
  }

  @Override
  public void connectFailed(InetSocketAddress endpoint, Throwable cause) {
    counter("thrift.pool.connect.failures", endpoint).increment();
  }

  @Override
  public void destroyed(InetSocketAddress endpoint) {
    counter("thrift.pool.connections.destroyed", endpoint).increment();
  }

  @Override
  public void invalidated(InetSocketAddress endpoint, Throwable cause) {
    counter("thrift.pool.connections.invalidated", endpoint).increment();
  }

  private Timer borrowTimer(InetSocketAddress endpoint, String outcome) {
    return Timer.builder("thrift.pool.borrow")
        .description("time borrowers waited for a connection, connects included")
        .tags(tags.and("endpoint", endpointTag(endpoint), "outcome", outcome))
        .register(registry);
  }

  private Counter counter(String name, InetSocketAddress endpoint) {
    return Counter.builder(name)
        .tags(tags.and("endpoint", endpointTag(endpoint)))
        .register(registry);
  }

  private static String endpointTag(InetSocketAddress endpoint) {
    return endpoint == null ? "none" : endpoint.getHostString() + ":" + endpoint.getPort();
  }
}
