package io.thriftnio.spring.boot;

import io.thriftnio.core.ThriftServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts the auto-configured Thrift server once the application context is refreshed, and drains it
 * when the context closes: new connections are refused, calls in flight finish within {@code
 * thrift.server.drain-timeout}, then the connections close.
 *
 * <p>It stops in {@link #PHASE}, the phase of Spring Boot's graceful web server shutdown ({@code
 * server.shutdown=graceful}), so the Thrift drain and the web server's run side by side, and both
 * are bounded by {@code spring.lifecycle.timeout-per-shutdown-phase}. It starts in the same phase,
 * after the web server. Inject it for the bound port ({@link #localAddress()}, also the {@code
 * local.thrift.server.port} property) and the serving state ({@link #state()}).
 */
public final class ThriftServerLifecycle implements SmartLifecycle, DisposableBean {

  /**
   * {@code SmartLifecycle.DEFAULT_PHASE - 1024}: Spring Boot's {@code
   * WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE}, repeated here because that class
   * moved between Boot 3 and Boot 4 (the module's tests check that the values agree).
   */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

  /** The property that holds the bound port once the server serves. */
  public static final String PORT_PROPERTY = "local.thrift.server.port";

  private static final Logger log = LoggerFactory.getLogger(ThriftServerLifecycle.class);

  /** Where the server is in its life. */
  public enum State {
    /** Built, not started yet. */
    NEW,
    /** Accepting and serving calls. */
    SERVING,
    /** Shutting down: refusing new connections, letting calls in flight finish. */
    DRAINING,
    /** Closed. */
    STOPPED
  }

  private final ThriftServer server;
  private final List<String> services;
  private final ConfigurableEnvironment environment;
  private final List<Consumer<ThriftServer>> onStart;
  private final List<Consumer<InetSocketAddress>> addressListeners = new CopyOnWriteArrayList<>();
  private volatile State state = State.NEW;

  ThriftServerLifecycle(
      ThriftServer server,
      List<String> services,
      ConfigurableEnvironment environment,
      List<Consumer<ThriftServer>> onStart) {
    this.server = server;
    this.services = List.copyOf(services);
    this.environment = environment;
    this.onStart = List.copyOf(onStart);
  }

  /**
   * The server, built from {@code thrift.server.*}.
   *
   * @return the server
   */
  public ThriftServer server() {
    return server;
  }

  /**
   * The names of the services served (their names in a multiplexed processor).
   *
   * @return the names, in the order the beans were defined
   */
  public List<String> services() {
    return services;
  }

  /**
   * Where the server is in its life.
   *
   * @return the state
   */
  public State state() {
    return state;
  }

  /**
   * The address the server listens on, with the bound port.
   *
   * @return the address, empty unless serving or draining
   */
  public Optional<InetSocketAddress> localAddress() {
    State s = state;
    return s == State.SERVING || s == State.DRAINING
        ? Optional.of(server.localAddress())
        : Optional.empty();
  }

  /** Tells {@code listener} the address to call this server on, now if serving, and at start. */
  void onServing(Consumer<InetSocketAddress> listener) {
    addressListeners.add(listener);
    localAddress().map(ThriftServerLifecycle::callable).ifPresent(listener);
  }

  @Override
  public synchronized void start() {
    if (state != State.NEW) {
      return;
    }
    try {
      server.start();
    } catch (IOException e) {
      state = State.STOPPED;
      server.close(); // releases what the failed start allocated; the context will not stop us
      throw new UncheckedIOException(
          "thrift.server: cannot listen on " + server.config().bindAddress() + ": " + e, e);
    }
    state = State.SERVING;
    InetSocketAddress bound = server.localAddress();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource("thrift.server.ports", Map.of(PORT_PROPERTY, bound.getPort())));
    onStart.forEach(hook -> hook.accept(server));
    addressListeners.forEach(l -> l.accept(callable(bound)));
    log.info("Thrift server serving {} on {}", services, bound);
  }

  @Override
  public void stop(Runnable callback) {
    if (!beginStop()) {
      callback.run();
      return;
    }
    // close() blocks for up to the drain timeout: off the thread that stops every phase, so that
    // the other lifecycles of this phase (the web server's graceful shutdown) drain meanwhile.
    Thread drain =
        new Thread(
            () -> {
              try {
                finishStop();
              } finally {
                callback.run();
              }
            },
            "thrift-nio-spring-drain");
    drain.start();
  }

  @Override
  public void stop() {
    if (beginStop()) {
      finishStop();
    }
  }

  private synchronized boolean beginStop() {
    if (state != State.SERVING) {
      return false;
    }
    state = State.DRAINING;
    log.info("Thrift server draining: calls in flight may finish");
    return true;
  }

  private void finishStop() {
    try {
      server.close();
    } finally {
      state = State.STOPPED;
      log.info("Thrift server stopped");
    }
  }

  /** Closes a server that was built and never started (the context failed before the start). */
  @Override
  public synchronized void destroy() {
    if (state == State.NEW) {
      state = State.STOPPED;
      server.close();
    }
  }

  @Override
  public boolean isRunning() {
    return state == State.SERVING || state == State.DRAINING;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** The wildcard address cannot be called: the loopback address on the bound port instead. */
  private static InetSocketAddress callable(InetSocketAddress bound) {
    return bound.getAddress() == null || bound.getAddress().isAnyLocalAddress()
        ? new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort())
        : bound;
  }
}
