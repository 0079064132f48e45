package io.thriftnio.core;

import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The validated, immutable settings of a server, produced by {@link ServerBuilder}. Each accessor
 * is documented, with its default, on the builder's setter of the same name.
 */
public final class ServerConfig {
  private final TProcessor processor;
  private final TAsyncProcessor asyncProcessor;
  private final TProtocolFactory inputProtocolFactory;
  private final TProtocolFactory outputProtocolFactory;
  private final InetSocketAddress bindAddress;
  private final IoStrategy ioStrategy;
  private final int workerThreads;
  private final int workerQueueCapacity;
  private final Executor workerExecutor;
  private final Duration workerStartTimeout;
  private final Duration handlerTimeout;
  private final int adaptiveLimit;
  private final boolean boundComputingCalls;
  private final Duration queueTimeTarget;
  private final int ioThreads;
  private final int maxFrameSize;
  private final Set<WireKind> wireKinds;
  private final String httpPath;
  private final String healthPath; // null: no health endpoint
  private final int maxConnections;
  private final Duration idleTimeout;
  private final Duration frameTimeout;
  private final Duration maxConnectionAge; // null: never
  private final Duration maxConnectionAgeGrace; // null: never forced
  private final Duration drainTimeout;
  private final int maxPendingWriteBytes;
  private final int maxCallsInFlightPerConnection;
  private final ServerTls tls;
  private final ServerSasl sasl;
  private final List<ServerInterceptor> interceptors;
  private final List<ConnectionListener> connectionListeners;

  ServerConfig(ServerBuilder<?> b) {
    if ((b.processor == null) == (b.asyncProcessor == null)) {
      throw new IllegalStateException(
          "processor: "
              + b.processor
              + ", asyncProcessor: "
              + b.asyncProcessor
              + " (expected: exactly one of them)");
    }
    if (b.bindAddress == null) {
      throw new SettingException(
          "bindAddress", null, "an address, e.g. new InetSocketAddress(\"127.0.0.1\", 0)");
    }
    if ((b.inputProtocolFactory == null) != (b.outputProtocolFactory == null)) {
      throw new IllegalStateException(
          "inputProtocolFactory: "
              + b.inputProtocolFactory
              + ", outputProtocolFactory: "
              + b.outputProtocolFactory
              + " (expected: both set or neither)");
    }
    this.processor = b.processor;
    this.asyncProcessor = b.asyncProcessor;
    TProtocolFactory binary = new TBinaryProtocol.Factory();
    this.inputProtocolFactory = b.inputProtocolFactory != null ? b.inputProtocolFactory : binary;
    this.outputProtocolFactory = b.outputProtocolFactory != null ? b.outputProtocolFactory : binary;
    this.bindAddress = b.bindAddress;
    this.ioStrategy = Checks.notNull("ioStrategy", b.ioStrategy);
    this.workerThreads =
        Checks.positive(
            "workerThreads", orDefault(b.workerThreads, ServerBuilder.DEFAULT_WORKER_THREADS));
    this.workerQueueCapacity =
        Checks.positive(
            "workerQueueCapacity",
            orDefault(b.workerQueueCapacity, ServerBuilder.DEFAULT_WORKER_QUEUE_CAPACITY));
    this.workerExecutor = ConfigChecks.checkWorkerExecutor(b.workerExecutor);
    this.workerStartTimeout =
        Checks.positive(
            "workerStartTimeout",
            orDefault(b.workerStartTimeout, ServerBuilder.DEFAULT_WORKER_START_TIMEOUT));
    this.handlerTimeout = Checks.nonNegative("handlerTimeout", b.handlerTimeout);
    this.adaptiveLimit = ConfigChecks.checkAdaptiveLimit(b.adaptiveLimit);
    this.boundComputingCalls = b.boundComputingCalls;
    this.queueTimeTarget = Checks.nonNegative("queueTimeTarget", b.queueTimeTarget);
    this.ioThreads = Checks.positive("ioThreads", b.ioThreads);
    this.maxFrameSize = Framing.checkMaxFrameSize(b.maxFrameSize);
    this.wireKinds = checkWireKinds(b.wireKinds);
    this.httpPath =
        checkHttpPath("httpPath", orDefault(b.httpPath, ServerBuilder.DEFAULT_HTTP_PATH));
    this.healthPath = b.healthPath == null ? null : checkHttpPath("healthPath", b.healthPath);
    ConfigChecks.refuseIgnored(b, ioStrategy, wireKinds);
    this.maxConnections = Checks.positive("maxConnections", b.maxConnections);
    this.idleTimeout = Checks.nonNegative("idleTimeout", b.idleTimeout);
    this.frameTimeout = Checks.positive("frameTimeout", b.frameTimeout);
    this.maxConnectionAge = ConfigChecks.checkMaxConnectionAge(b.maxConnectionAge);
    this.maxConnectionAgeGrace =
        ConfigChecks.checkMaxConnectionAgeGrace(b.maxConnectionAgeGrace, maxConnectionAge);
    this.drainTimeout = Checks.nonNegative("drainTimeout", b.drainTimeout);
    this.maxPendingWriteBytes = Checks.positive("maxPendingWriteBytes", b.maxPendingWriteBytes);
    this.maxCallsInFlightPerConnection =
        Checks.positive("maxCallsInFlightPerConnection", b.maxCallsInFlightPerConnection);
    this.tls = b.tls;
    this.sasl = SaslServerChecks.check(b, wireKinds, maxFrameSize);
    this.interceptors = checkInterceptors(b.interceptors);
    this.connectionListeners = List.copyOf(b.connectionListeners);
  }

  private static <T> T orDefault(T value, T defaultValue) {
    return value != null ? value : defaultValue;
  }

  private static Set<WireKind> checkWireKinds(WireKind[] wireKinds) {
    EnumSet<WireKind> set = EnumSet.noneOf(WireKind.class);
    for (int i = 0; i < wireKinds.length; i++) {
      if (wireKinds[i] == null) {
        throw new SettingException(
            "wireKinds[" + i + "]", null, "one of " + EnumSet.allOf(WireKind.class));
      }
      set.add(wireKinds[i]);
    }
    return Collections.unmodifiableSet(set);
  }

  private static String checkHttpPath(String name, String path) {
    if (path == null
        || !path.startsWith("/")
        || path.indexOf('?') >= 0
        || path.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
      throw new SettingException(
          name,
          path == null ? "null" : "'" + path + "'",
          "an absolute path, starting with /, without query or spaces");
    }
    return path;
  }

  private static List<ServerInterceptor> checkInterceptors(List<ServerInterceptor> interceptors) {
    if (interceptors == null) {
      throw new SettingException("interceptors", null, "a list, empty for none");
    }
    for (int i = 0; i < interceptors.size(); i++) {
      if (interceptors.get(i) == null) {
        throw new SettingException("interceptors[" + i + "]", null, "an interceptor");
      }
    }
    return List.copyOf(interceptors);
  }

  /** The synchronous processor, or {@code null} when {@link #asyncProcessor()} is set. */
  public TProcessor processor() {
    return processor;
  }

  /** The asynchronous processor, or {@code null} when {@link #processor()} is set. */
  public TAsyncProcessor asyncProcessor() {
    return asyncProcessor;
  }

  /** Decodes requests. */
  public TProtocolFactory inputProtocolFactory() {
    return inputProtocolFactory;
  }

  /** Encodes responses. */
  public TProtocolFactory outputProtocolFactory() {
    return outputProtocolFactory;
  }

  /** The address to listen on, as configured (port 0 possible). */
  public InetSocketAddress bindAddress() {
    return bindAddress;
  }

  /** Where the processor runs. */
  public IoStrategy ioStrategy() {
    return ioStrategy;
  }

  /** Threads of the server's own worker pool. */
  public int workerThreads() {
    return workerThreads;
  }

  /** Requests that may wait for a worker thread of the server's own pool. */
  public int workerQueueCapacity() {
    return workerQueueCapacity;
  }

  /** The caller-owned worker executor, or {@code null} for the server's own pool. */
  public Executor workerExecutor() {
    return workerExecutor;
  }

  /** How long a call may wait for the worker executor to start it. */
  public Duration workerStartTimeout() {
    return workerStartTimeout;
  }

  /** How long a call may go unanswered after its request was read; zero when off. */
  public Duration handlerTimeout() {
    return handlerTimeout;
  }

  /**
   * The highest the server's adaptive limit on calls in progress may go; 0 when off, the default
   * (see {@link ServerBuilder#adaptiveLimit(int)}).
   */
  public int adaptiveLimit() {
    return adaptiveLimit;
  }

  /**
   * Whether the server's own threads ({@code WORKER}, {@code LEADER_FOLLOWER}) run at most about
   * one call per processor while its calls compute; {@code true} by default (see {@link
   * ServerBuilder#boundComputingCalls(boolean)}).
   */
  public boolean boundComputingCalls() {
    return boundComputingCalls;
  }

  /**
   * The queue-time target under overload; zero when off (see {@link
   * ServerBuilder#queueTimeTarget(Duration)}).
   */
  public Duration queueTimeTarget() {
    return queueTimeTarget;
  }

  /** IO threads. */
  public int ioThreads() {
    return ioThreads;
  }

  /** Largest payload accepted, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /** The wireKinds accepted on the server's port; never empty. */
  public Set<WireKind> wireKinds() {
    return wireKinds;
  }

  /** The path HTTP peers post their calls to. */
  public String httpPath() {
    return httpPath;
  }

  /**
   * The path an HTTP {@code GET} asks whether the server serves ({@code 200}) or drains ({@code
   * 503}); {@code null} when there is none.
   */
  public String healthPath() {
    return healthPath;
  }

  /** Connections open at once. */
  public int maxConnections() {
    return maxConnections;
  }

  /** Idle timeout; zero when off. */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** Time allowed to finish a started frame. */
  public Duration frameTimeout() {
    return frameTimeout;
  }

  /** How long a connection may live before it is closed when idle; {@code null} for never. */
  public Duration maxConnectionAge() {
    return maxConnectionAge;
  }

  /**
   * How long past its age a busy connection stays open before it is closed anyway; {@code null} for
   * never.
   */
  public Duration maxConnectionAgeGrace() {
    return maxConnectionAgeGrace;
  }

  /** Time {@code close()} lets calls in flight finish. */
  public Duration drainTimeout() {
    return drainTimeout;
  }

  /** Response bytes that may wait to be written on one connection. */
  public int maxPendingWriteBytes() {
    return maxPendingWriteBytes;
  }

  /** Calls of one connection that may be in flight at once. */
  public int maxCallsInFlightPerConnection() {
    return maxCallsInFlightPerConnection;
  }

  /** The interceptors around every call, first to run first; empty by default. */
  public List<ServerInterceptor> interceptors() {
    return interceptors;
  }

  /** The TLS settings, or {@code null} when the server speaks plain TCP. */
  public ServerTls tls() {
    return tls;
  }

  /** The SASL settings of {@link WireKind#SASL} connections, or {@code null} without SASL. */
  public ServerSasl sasl() {
    return sasl;
  }

  /** The connection listeners, in the order they run; empty if none. */
  public List<ConnectionListener> connectionListeners() {
    return connectionListeners;
  }

  @Override
  public String toString() {
    return "ServerConfig{bind="
        + bindAddress
        + ", strategy="
        + ioStrategy
        + ", ioThreads="
        + ioThreads
        + ", workerThreads="
        + (workerExecutor != null ? "external" : Integer.toString(workerThreads))
        + ", wireKinds="
        + wireKinds
        + (wireKinds.contains(WireKind.HTTP) ? ", httpPath=" + httpPath : "")
        + (healthPath != null ? ", healthPath=" + healthPath : "")
        + ", maxFrameSize="
        + maxFrameSize
        + ", maxConnections="
        + maxConnections
        + ", idleTimeout="
        + idleTimeout
        + ", frameTimeout="
        + frameTimeout
        + (maxConnectionAge == null ? "" : ", maxConnectionAge=" + maxConnectionAge)
        + (maxConnectionAgeGrace == null ? "" : ", maxConnectionAgeGrace=" + maxConnectionAgeGrace)
        + ", drainTimeout="
        + drainTimeout
        + ", workerStartTimeout="
        + workerStartTimeout
        + (handlerTimeout.isZero() ? "" : ", handlerTimeout=" + handlerTimeout)
        + (adaptiveLimit == 0 ? "" : ", adaptiveLimit=" + adaptiveLimit)
        + (boundComputingCalls ? "" : ", boundComputingCalls=false")
        + ", queueTimeTarget="
        + queueTimeTarget
        + ", maxCallsInFlightPerConnection="
        + maxCallsInFlightPerConnection
        + (tls != null ? ", tls=" + tls : "")
        + (sasl != null ? ", sasl=" + sasl : "")
        + (interceptors.isEmpty() ? "" : ", interceptors=" + interceptors.size())
        + (connectionListeners.isEmpty()
            ? ""
            : ", connectionListeners=" + connectionListeners.size())
        + '}';
  }
}
