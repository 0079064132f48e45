package io.thriftnio.core;

import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The settings every thrift-nio server shares. Transport builders extend it with their own knobs
 * and implement {@link #build()}.
 *
 * <p>Setters only record values; {@link #build()} validates all of them together and fails with a
 * {@link SettingException} that names the setting, the value and the rule, e.g. {@code
 * maxFrameSize: -1 (expected: > 0)}. A setting the configuration would ignore is refused there too:
 * {@link #httpPath} or {@link #healthPath} without HTTP in {@link #wireKinds}, a worker setting
 * with {@link IoStrategy#SAME_THREAD}, {@link #workerQueueCapacity} or {@link #workerStartTimeout}
 * with {@link IoStrategy#LEADER_FOLLOWER} (it queues nothing), the own pool's size or queue beside
 * a {@link #workerExecutor}, a {@link #maxConnectionAgeGrace} without a {@link #maxConnectionAge}.
 * A {@code null} worker setting, path or connection age is unset (the default). Not thread-safe.
 *
 * @param <B> the concrete builder type, returned by every setter
 */
public abstract class ServerBuilder<B extends ServerBuilder<B>> extends ConnectionTimeSettings<B> {

  /** Default {@link #workerThreads(int)}: {@value}. */
  public static final int DEFAULT_WORKER_THREADS = 64;

  /** Default {@link #workerQueueCapacity(int)}: {@value}. */
  public static final int DEFAULT_WORKER_QUEUE_CAPACITY = 10_000;

  /** Default {@link #maxConnections(int)}: {@value}. */
  public static final int DEFAULT_MAX_CONNECTIONS = 16_384;

  /** Default {@link #httpPath}: {@value}. */
  public static final String DEFAULT_HTTP_PATH = "/";

  /** Default {@link #frameTimeout(Duration)}: 30 seconds. */
  public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #drainTimeout(Duration)}: 10 seconds. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link #maxPendingWriteBytes(int)}: 32 MiB. */
  public static final int DEFAULT_MAX_PENDING_WRITE_BYTES = 32 * 1024 * 1024;

  /** Default {@link #workerStartTimeout(Duration)}: 30 seconds. */
  public static final Duration DEFAULT_WORKER_START_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #queueTimeTarget(Duration)}: 5 milliseconds. */
  public static final Duration DEFAULT_QUEUE_TIME_TARGET = Duration.ofMillis(5);

  /** Default {@link #maxCallsInFlightPerConnection(int)}: {@value}. */
  public static final int DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION = 1024;

  TProcessor processor;
  TAsyncProcessor asyncProcessor;
  TProtocolFactory inputProtocolFactory;
  TProtocolFactory outputProtocolFactory;
  InetSocketAddress bindAddress;
  IoStrategy ioStrategy = IoStrategy.WORKER;
  Integer workerThreads; // null: not set, the default (set ones are checked against ioStrategy)
  Integer workerQueueCapacity;
  Executor workerExecutor;
  Duration workerStartTimeout;
  Duration handlerTimeout = Duration.ZERO;
  Integer adaptiveLimit; // null: off
  boolean boundComputingCalls = true;
  Duration queueTimeTarget = DEFAULT_QUEUE_TIME_TARGET;
  int ioThreads = Runtime.getRuntime().availableProcessors();
  int maxFrameSize = Framing.DEFAULT_MAX_FRAME_SIZE;
  WireKind[] wireKinds = {WireKind.FRAMED};
  String httpPath;
  String healthPath;
  int maxConnections = DEFAULT_MAX_CONNECTIONS;
  Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
  int maxPendingWriteBytes = DEFAULT_MAX_PENDING_WRITE_BYTES;
  int maxCallsInFlightPerConnection = DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION;
  ServerTls tls;
  ServerSasl sasl;
  final List<ConnectionListener> connectionListeners = new ArrayList<>();
  // null after interceptors(null), refused at build()
  List<ServerInterceptor> interceptors = new ArrayList<>();

  /** For subclasses. */
  protected ServerBuilder() {}

  /**
   * The synchronous processor to serve, e.g. {@code new BenchService.Processor<>(handler)} or a
   * {@link org.apache.thrift.TMultiplexedProcessor}. Exactly one of this and {@link
   * #asyncProcessor(TAsyncProcessor)} is required.
   */
  public B processor(TProcessor processor) {
    this.processor = processor;
    return self();
  }

  /**
   * The asynchronous processor to serve, e.g. {@code new BenchService.AsyncProcessor<>(handler)}.
   * Exactly one of this and {@link #processor(TProcessor)} is required.
   */
  public B asyncProcessor(TAsyncProcessor asyncProcessor) {
    this.asyncProcessor = asyncProcessor;
    return self();
  }

  /**
   * The protocol for requests and responses. Default: {@code TBinaryProtocol.Factory}, the stock
   * Thrift default. Clients must use the same protocol.
   */
  public B protocol(TProtocolFactory protocolFactory) {
    return protocol(protocolFactory, protocolFactory);
  }

  /** Different protocols for requests (input) and responses (output). Default: binary for both. */
  public B protocol(TProtocolFactory inputProtocolFactory, TProtocolFactory outputProtocolFactory) {
    this.inputProtocolFactory = inputProtocolFactory;
    this.outputProtocolFactory = outputProtocolFactory;
    return self();
  }

  /** Required: the address to listen on; port 0 picks a free port ({@code localAddress()}). */
  public B bind(InetSocketAddress bindAddress) {
    this.bindAddress = bindAddress;
    return self();
  }

  /** Where the processor runs; see {@link IoStrategy}. Default: {@link IoStrategy#WORKER}. */
  public B ioStrategy(IoStrategy ioStrategy) {
    this.ioStrategy = ioStrategy;
    return self();
  }

  /**
   * Threads of the server's own worker pool, used by {@link IoStrategy#WORKER} unless {@link
   * #workerExecutor(Executor)} is set. Default: {@value #DEFAULT_WORKER_THREADS}.
   */
  public B workerThreads(int workerThreads) {
    this.workerThreads = workerThreads;
    return self();
  }

  /**
   * Requests that may wait for a thread of the server's own worker pool; beyond it a request is
   * answered {@code TApplicationException(INTERNAL_ERROR)}, overloaded. While {@link
   * #boundComputingCalls} holds a computing service's calls back, as many may wait for their turn
   * to compute, beyond which a call is answered {@link NotRun not run} ({@code "not run: server
   * overloaded: echo not queued: 10000 calls wait for a turn to compute ..."}). Default: {@value
   * #DEFAULT_WORKER_QUEUE_CAPACITY}.
   */
  public B workerQueueCapacity(int workerQueueCapacity) {
    this.workerQueueCapacity = workerQueueCapacity;
    return self();
  }

  /**
   * A caller-owned executor for {@link IoStrategy#WORKER} instead of the server's own pool (e.g.
   * {@code Executors.newVirtualThreadPerTaskExecutor()}); the server never shuts it down. It must
   * run every task it accepts or throw {@link java.util.concurrent.RejectedExecutionException},
   * answered as an overload ({@link ServerStats#overloadedCalls()}): replies leave in request
   * order, so a silently dropped task would hold back every later reply. {@link #build()} rejects a
   * {@code ThreadPoolExecutor} with a {@code DiscardPolicy} or {@code DiscardOldestPolicy}; a call
   * not started within {@link #workerStartTimeout(Duration)} is an overload. Default: none.
   */
  public B workerExecutor(Executor workerExecutor) {
    this.workerExecutor = workerExecutor;
    return self();
  }

  /**
   * How long a call may wait for the worker executor ({@link IoStrategy#WORKER}) to start it: the
   * server's bound on queue time. Then it is answered {@link NotRun not run} ({@code
   * TApplicationException(INTERNAL_ERROR, "not run: server overloaded: ... not started within N ms
   * ...")}), counted in {@link ServerStats#overloadedCalls()}, its memory released, its task a
   * no-op if run later: this sheds calls whose callers have likely given up, and keeps a connection
   * moving when an executor drops a task silently. A caller's own deadline ({@link
   * ServerCallContext#CLIENT_TIMEOUT_HEADER}) sheds its call the same way when it comes first. A
   * started call is never interrupted. Default: 30 seconds.
   */
  public B workerStartTimeout(Duration workerStartTimeout) {
    this.workerStartTimeout = workerStartTimeout;
    return self();
  }

  /**
   * How long a call may hold its connection's reply order: a call not answered within this time of
   * its request being read is answered {@code TApplicationException(INTERNAL_ERROR, "slowMethod did
   * not complete within handlerTimeout 500 ms")} so the replies behind it leave; counted in {@link
   * ServerStats#timedOutCalls()}, logged, seen by interceptors as {@link CallOutcome#TIMED_OUT}.
   * The handler is not stopped; its late result is discarded. Pitfall: a handler blocking on {@code
   * SAME_THREAD} or {@code LEADER_FOLLOWER} holds its connection's reading thread, so the calls
   * behind it may wait until it returns. Default: {@link Duration#ZERO}, off.
   */
  public B handlerTimeout(Duration handlerTimeout) {
    this.handlerTimeout = handlerTimeout;
    return self();
  }

  /**
   * Opt-in: bounds the server's calls in progress (from when a request is dispatched, before it
   * waits for a worker, to its reply) with an adaptive limit, so that under overload calls are
   * refused at once instead of queueing until their callers give up. A call that finds the limit
   * reached is answered {@link NotRun not run} ({@code "not run: server overloaded: echo refused at
   * the adaptive limit (limit=24 reached, max 200) ..."}), which this library's pools send to
   * another endpoint, and counted in {@link ServerStats#overloadedCalls()}; it never reaches the
   * interceptors.
   *
   * <p>The limit is delay-based (Netflix concurrency-limits' {@code Gradient2Limit}, the library
   * gRPC users add for the same purpose): it starts at {@code min(20, maxCallsInProgress)}, falls
   * when calls take longer than their long-run average (they queue), rises while they do not and
   * the limit is in use, never goes below its start or above {@code maxCallsInProgress}. It needs
   * {@code com.netflix.concurrency-limits:concurrency-limits-core} (0.5.4) on the class path, an
   * optional dependency of this library: {@link #build()} says so if it is missing. Works on every
   * strategy; one limit for the whole server, shared by its connections. Default: off.
   *
   * @param maxCallsInProgress the highest the limit may go, {@code > 0}
   */
  public B adaptiveLimit(int maxCallsInProgress) {
    this.adaptiveLimit = maxCallsInProgress;
    return self();
  }

  /**
   * Whether the server's own threads run at most about one call per processor while its calls
   * compute ({@link IoStrategy#WORKER}: its worker pool; {@link IoStrategy#LEADER_FOLLOWER}: its
   * reading threads), so that a CPU-bound service offered more than it can do keeps the excess in
   * sight of {@link #queueTimeTarget(Duration)} and the callers' deadlines, instead of sharing the
   * CPU among all its threads (every call then takes many times its work, and requests wait unread
   * while the IO threads compete for the CPU).
   *
   * <p>The server measures one call every 10 ms on its thread (Linux's per-thread scheduler
   * statistics: the call's CPU time, and its time waiting for a CPU): while its calls take 80 us of
   * CPU or more each, at most {@code availableProcessors / share} run at once, {@code share} being
   * the part of a call's own time (its time less its time waiting for a CPU) spent on the CPU: a
   * call that computes all its time runs one per processor, one that computes half of it two; calls
   * that take less CPU, or that mostly wait (on a database, another service, a lock), run on every
   * thread as before, whatever the load. Nor while the JIT is still compiling (more than a
   * twentieth of the time the last measures took, by the JVM's compilation counter): a server
   * started under full load measures its calls before they are compiled, many times their warm
   * cost, and stays open until they are. Under {@code WORKER} a call waits for its turn as for a
   * worker ({@code workerStartTimeout}, the queue-time bound, its caller's deadline); under {@code
   * LEADER_FOLLOWER} a read batch takes one turn for its calls and waits for it at most a fifth of
   * {@code queueTimeTarget} (1 ms by default), after which its calls are answered {@link NotRun not
   * run} ({@code "not run: server overloaded: echo not started: no turn to run within 1 ms ..."},
   * counted in {@link ServerStats#overloadedCalls()}): meanwhile the connection's later requests
   * wait unread, unseen by their deadlines, so the wait is kept short. Not measured, so never
   * bounded, where those statistics cannot be read (another system); not for a {@link
   * #workerExecutor(Executor)} of the caller's, nor for {@code SAME_THREAD}. Default: {@code true}.
   *
   * @param enabled {@code false}: every thread runs calls whatever they do
   */
  public B boundComputingCalls(boolean enabled) {
    this.boundComputingCalls = enabled;
    return self();
  }

  /**
   * The server's bound on queue time under overload, on every strategy: once the calls have waited
   * this long or longer to start for 100 ms on end (a queue that stands, not a burst), a call that
   * waited this long is answered {@link NotRun not run} ({@code "not run: server overloaded: echo
   * not started: waited 12 ms, over the queue-time target 5 ms, overloaded for 340 ms ..."})
   * instead of run, counted in {@link ServerStats#overloadedCalls()}; calls that waited less run.
   * The bound ends once no call has waited this long for 100 ms. A long wait with nothing queued
   * behind it (the server's own worker pool's queue empty), or the first after 100 ms in which no
   * call started, is not a standing queue: that call runs. So a server offered more than it can run
   * keeps running at its capacity calls that waited at most about this long, instead of calls whose
   * callers have given up. The wait counts from when the request was read, for a worker ({@link
   * IoStrategy#WORKER}: one bound for the server) or behind the calls before it in its read batch
   * ({@code SAME_THREAD}, {@code LEADER_FOLLOWER}: one bound per connection, so a client that keeps
   * more than this target's worth of calls pipelined on one connection for 100 ms has the excess
   * answered not run). Raise it for handlers whose callers accept a longer wait; {@link
   * Duration#ZERO} turns it off. Default: {@link #DEFAULT_QUEUE_TIME_TARGET}, 5 ms.
   */
  public B queueTimeTarget(Duration queueTimeTarget) {
    this.queueTimeTarget = queueTimeTarget;
    return self();
  }

  /** IO threads (event loops or selector runners). Default: the number of available processors. */
  public B ioThreads(int ioThreads) {
    this.ioThreads = ioThreads;
    return self();
  }

  /**
   * The largest request payload accepted, in bytes (the 4-byte length prefix not counted); a larger
   * declared length closes the connection. Also bounds responses. Default: 16,384,000, libthrift's
   * default.
   */
  public B maxFrameSize(int maxFrameSize) {
    this.maxFrameSize = maxFrameSize;
    return self();
  }

  /**
   * The wire kinds the server accepts, all on its one port: each connection's first bytes say which
   * one it speaks (a length prefix for {@link WireKind#FRAMED}; {@code 80 01}, {@code 82} or {@code
   * [} for {@link WireKind#UNFRAMED}; a method name for {@link WireKind#HTTP}; a length then {@code
   * 0F FF} for {@link WireKind#HEADER}; {@code 01}, SASL's {@code START}, for {@link
   * WireKind#SASL}), and its replies go back the same way. First bytes that match none close the
   * connection, counted in {@link ServerStats#badFrames()}. Everything else applies to every kind:
   * the IO strategy, pipelining, {@link #maxFrameSize} (an unframed message's largest size; HTTP's
   * largest body, refused with {@code 413}), the timeouts, TLS, the limits, the stats and the call
   * context. Default: {@link WireKind#FRAMED} alone.
   *
   * @param first a transport
   * @param more further wire kinds; repeats are ignored
   */
  public B wireKinds(WireKind first, WireKind... more) {
    Stream<WireKind> rest = more == null ? Stream.empty() : Stream.of(more);
    this.wireKinds = Stream.concat(Stream.of(first), rest).toArray(WireKind[]::new);
    return self();
  }

  /**
   * The path that {@link WireKind#HTTP} peers post their calls to, e.g. {@code /thrift}; the query
   * string of a request is ignored. Another path is answered {@code 404}, another method than
   * {@code POST} {@code 405}. Only with {@link #wireKinds} including HTTP: {@link #build()} refuses
   * a path the server would ignore. Default: {@value #DEFAULT_HTTP_PATH}.
   *
   * @param path an absolute path: starts with {@code /}, no query, no spaces
   */
  public B httpPath(String path) {
    this.httpPath = path;
    return self();
  }

  /**
   * The path of a health probe (a Kubernetes {@code httpGet}), e.g. {@code /health}: a {@code GET}
   * there is answered on the IO thread, {@code 200} while serving, {@code 503} throughout the drain
   * of {@link ThriftServer#close()} (the listener stays open for probes alone); no call is made. An
   * absolute path (see {@link #httpPath}), only with HTTP in {@link #wireKinds}. Default: none.
   */
  public B healthPath(String path) {
    this.healthPath = path;
    return self();
  }

  /**
   * Connections open at once; a connection over the limit is accepted and closed at once, and
   * counted in {@link ServerStats#rejectedConnections()}. Default: {@value
   * #DEFAULT_MAX_CONNECTIONS}.
   */
  public B maxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
    return self();
  }

  /** How long {@link ThriftServer#close()} lets calls in flight finish. Default: 10 seconds. */
  public B drainTimeout(Duration drainTimeout) {
    this.drainTimeout = drainTimeout;
    return self();
  }

  /**
   * Response bytes that may wait to be written on one connection; above it the server stops reading
   * from that connection until writes drain, and closes it if they do not drain within {@link
   * #frameTimeout(Duration)}. Default: 32 MiB.
   */
  public B maxPendingWriteBytes(int maxPendingWriteBytes) {
    this.maxPendingWriteBytes = maxPendingWriteBytes;
    return self();
  }

  /**
   * Calls of one connection that may be in flight at once: running, waiting for a worker, or
   * answered and waiting for an earlier call's response. Requests beyond it wait unprocessed and
   * the server stops reading the connection until calls complete, so one connection cannot fill the
   * worker queue or hold unbounded memory. Default: {@value
   * #DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION}.
   */
  public B maxCallsInFlightPerConnection(int maxCallsInFlightPerConnection) {
    this.maxCallsInFlightPerConnection = maxCallsInFlightPerConnection;
    return self();
  }

  /**
   * Serves TLS on every connection: the handshake first, then the framed Thrift messages inside TLS
   * records. A connection whose handshake fails or times out is closed and counted in {@link
   * ServerStats#tlsFailures()}. Default: {@code null}, plain TCP.
   */
  public B tls(ServerTls tls) {
    this.tls = tls;
    return self();
  }

  /**
   * The SASL settings of {@link WireKind#SASL} connections: required with SASL in {@link
   * #wireKinds}, refused without. Each connection negotiates before its first call, which sees who
   * it is ({@link ServerCallContext#sasl()}). {@code build()} refuses PLAIN without {@link #tls}
   * (unless {@code plainWithoutTls}) and a {@link #maxFrameSize} of 16 MiB or more beside FRAMED or
   * HEADER (such a length starts with 01, SASL's {@code START}). Default: {@code null}, no SASL.
   */
  public B sasl(ServerSasl sasl) {
    this.sasl = sasl;
    return self();
  }

  /**
   * The interceptors that run around every call, in order: the first one's {@code beforeCall} runs
   * first and its {@code afterCall} last (see {@link ServerInterceptor}). Replaces any set before.
   * Default: none; with none, a call costs what it costs without this feature.
   *
   * @param interceptors the chain, first to run first, empty for none; neither it nor an element
   *     may be {@code null} (checked at {@link #build()})
   */
  public B interceptors(List<? extends ServerInterceptor> interceptors) {
    this.interceptors = interceptors == null ? null : new ArrayList<>(interceptors);
    return self();
  }

  /**
   * Adds an interceptor after those already configured (see {@link #interceptors(List)}).
   *
   * @param interceptor runs after the interceptors added before it; not {@code null} (checked at
   *     {@link #build()})
   */
  public B addInterceptor(ServerInterceptor interceptor) {
    if (interceptors == null) {
      interceptors = new ArrayList<>();
    }
    interceptors.add(interceptor);
    return self();
  }

  /**
   * Adds a listener told of every connection's open and close (with its {@link CloseCause}) and, if
   * it wishes, of every call before it runs; see {@link ConnectionListener} for the threads and
   * guarantees. May be called several times: listeners run in the order added. A stock {@code
   * TServerEventHandler} is added as {@code connectionListener(ConnectionListener.adapt(h))}.
   * Default: none (then no listener work at all).
   *
   * @throws NullPointerException if {@code listener} is null
   */
  public B connectionListener(ConnectionListener listener) {
    connectionListeners.add(Objects.requireNonNull(listener, "listener"));
    return self();
  }

  /**
   * Validates every setting and returns the immutable configuration, throwing as {@link #build()}
   * says; transport builders call this first in {@link #build()}.
   */
  protected final ServerConfig config() {
    return new ServerConfig(this);
  }

  /**
   * Validates the settings and creates the server, not yet started.
   *
   * @throws SettingException if a value is out of range, a required value is missing, or a setting
   *     is one the others would ignore or contradict
   * @throws IllegalStateException if exactly one of processor and asyncProcessor is not set, only
   *     one of the protocol factories is, or the transport does not support the chosen strategy
   */
  public abstract ThriftServer build();
}
