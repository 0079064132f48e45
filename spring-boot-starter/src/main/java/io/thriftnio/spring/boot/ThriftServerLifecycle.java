package io.thriftnio.spring.boot;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.ThriftServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * local.thrift.server.port} property), {@link #isRunning()} while it serves or drains.
 *
 * <p>The {@code onStart} hooks and the address listeners run under none of its locks, after the
 * server serves: a hook may stop the server, from any thread.
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

  /** Where the server is in its life: the Actuator's health and info report it. */
  enum State {
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

  /**
   * Guards the state's transitions (one start, one stop, a destroy only before a start) and the
   * address listeners: each is told the address once, by {@link #start()} or by {@link #onServing}.
   * Held while nothing but this class's fields is touched: the server's start and close, the hooks
   * and the listeners run outside it.
   */
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final List<Consumer<InetSocketAddress>> addressListeners = new ArrayList<>();

  /** The address the listeners were told, once the start announced it; null before. */
  @GuardedBy("lock")
  private InetSocketAddress announced;

  /** A start is binding the server: a second start, or a destroy, leaves it alone. */
  @GuardedBy("lock")
  private boolean starting;

  private volatile State state = State.NEW; // written under lock

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
  State state() {
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
    InetSocketAddress now;
    synchronized (lock) {
      addressListeners.add(listener);
      now = announced; // else the start tells it
    }
    if (now != null && isRunning()) {
      listener.accept(now);
    }
  }

  @Override
  public void start() {
    synchronized (lock) {
      if (state != State.NEW || starting) {
        return;
      }
      starting = true;
    }
    try {
      server.start(); // its connection listeners' serverStarting runs here: outside our lock
    } catch (IOException e) {
      synchronized (lock) {
        starting = false;
        state = State.STOPPED;
      }
      server.close(); // releases what the failed start allocated; the context will not stop us
      throw new UncheckedIOException(
          "thrift.server: cannot listen on " + server.config().bindAddress() + ": " + e, e);
    } catch (RuntimeException | Error e) {
      synchronized (lock) {
        starting = false; // still NEW: a destroy closes it
      }
      throw e;
    }
    InetSocketAddress bound = server.localAddress();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource("thrift.server.ports", Map.of(PORT_PROPERTY, bound.getPort())));
    InetSocketAddress address = callable(bound);
    List<Consumer<InetSocketAddress>> listeners;
    synchronized (lock) {
      starting = false;
      state = State.SERVING;
      announced = address;
      listeners = List.copyOf(addressListeners); // those added from now on are told by onServing
    }
    log.info("Thrift server serving {} on {}", services, bound);
    // Outside the lock: a hook or a listener may stop the server, on this thread or another.
    onStart.forEach(hook -> hook.accept(server));
    for (Consumer<InetSocketAddress> l : listeners) {
      if (isRunning()) {
        l.accept(address);
      }
    }
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

  private boolean beginStop() {
    synchronized (lock) {
      if (state != State.SERVING) {
        return false;
      }
      state = State.DRAINING;
    }
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
  public void destroy() {
    synchronized (lock) {
      if (state != State.NEW || starting) {
        return;
      }
      state = State.STOPPED;
    }
    server.close();
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
