package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.thrift.TBaseAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ServerBuilderTest {

  /** The smallest transport builder: build() validates and returns a server that only holds it. */
  static final class StubBuilder extends ServerBuilder<StubBuilder> {
    @Override
    public ThriftServer build() {
      ServerConfig config = config();
      return new ThriftServer() {
        @Override
        public ThriftServer start() {
          return this;
        }

        @Override
        public InetSocketAddress localAddress() {
          return config.bindAddress();
        }

        @Override
        public boolean isRunning() {
          return false;
        }

        @Override
        public ServerConfig config() {
          return config;
        }

        @Override
        public ServerStats stats() {
          return new io.thriftnio.core.util.internal.ServerCounters().snapshot(ServerStats.class);
        }

        @Override
        public boolean beforeDrain(Runnable hook) {
          return false;
        }

        @Override
        public void close() {}
      };
    }
  }

  private static final TProcessor PROCESSOR = (in, out) -> {};
  private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 0);

  private static StubBuilder minimal() {
    return new StubBuilder().processor(PROCESSOR).bind(ADDRESS);
  }

  private static ServerConfig build(UnaryOperator<StubBuilder> settings) {
    return settings.apply(minimal()).build().config();
  }

  /** A listener that does nothing; each instance is a distinct listener. */
  private static ConnectionListener quietListener() {
    return new ConnectionListener() {
      @Override
      public void onOpen(ConnectionInfo connection) {}

      @Override
      public void onClose(ConnectionInfo connection, CloseCause cause) {}
    };
  }

  @Test
  void connectionListenersAreNoneByDefaultAndKeptInTheOrderAdded() {
    assertThat(minimal().build().config().connectionListeners()).isEmpty();
    ConnectionListener first = quietListener();
    ConnectionListener second = quietListener();
    assertThat(
            build(b -> b.connectionListener(first).connectionListener(second))
                .connectionListeners())
        .containsExactly(first, second);
    assertThatThrownBy(() -> minimal().connectionListener(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listener");
  }

  @Test
  void everyDefault() {
    ServerConfig c = minimal().build().config();
    assertThat(c.processor()).isSameAs(PROCESSOR);
    assertThat(c.asyncProcessor()).isNull();
    assertThat(c.bindAddress()).isSameAs(ADDRESS);
    assertThat(c.ioStrategy()).isEqualTo(IoStrategy.WORKER);
    assertThat(c.workerThreads()).isEqualTo(64).isEqualTo(ServerBuilder.DEFAULT_WORKER_THREADS);
    assertThat(c.workerQueueCapacity())
        .isEqualTo(10_000)
        .isEqualTo(ServerBuilder.DEFAULT_WORKER_QUEUE_CAPACITY);
    assertThat(c.workerExecutor()).isNull();
    assertThat(c.workerStartTimeout())
        .isEqualTo(Duration.ofSeconds(30))
        .isEqualTo(ServerBuilder.DEFAULT_WORKER_START_TIMEOUT);
    assertThat(c.handlerTimeout()).as("off").isEqualTo(Duration.ZERO);
    assertThat(c.toString()).doesNotContain("handlerTimeout");
    assertThat(c.ioThreads()).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(c.maxFrameSize()).isEqualTo(16_384_000).isEqualTo(Framing.DEFAULT_MAX_FRAME_SIZE);
    assertThat(c.maxConnections())
        .isEqualTo(16_384)
        .isEqualTo(ServerBuilder.DEFAULT_MAX_CONNECTIONS);
    assertThat(c.idleTimeout()).isEqualTo(Duration.ZERO);
    assertThat(c.frameTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.drainTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.maxPendingWriteBytes()).isEqualTo(32 * 1024 * 1024);
    assertThat(c.maxCallsInFlightPerConnection())
        .isEqualTo(1024)
        .isEqualTo(ServerBuilder.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION);
    assertThat(c.tls()).as("plain TCP unless tls(...) is set").isNull();
    assertThat(c.wireKinds()).as("framed alone, as before").containsExactly(WireKind.FRAMED);
    assertThat(c.httpPath()).isEqualTo("/").isEqualTo(ServerBuilder.DEFAULT_HTTP_PATH);
    assertThat(c.inputProtocolFactory()).isInstanceOf(TBinaryProtocol.Factory.class);
    assertThat(c.outputProtocolFactory()).isInstanceOf(TBinaryProtocol.Factory.class);
    assertThat(c.toString())
        .contains("strategy=WORKER")
        .contains("workerThreads=64")
        .contains("maxFrameSize=16384000");
  }

  @Test
  void everySettingIsRecorded() {
    TProtocolFactory compact = new TCompactProtocol.Factory();
    TProtocolFactory json = new TJSONProtocol.Factory();
    Executor executor = Runnable::run;
    ServerConfig c =
        build(
            b ->
                b.protocol(compact, json)
                    .ioStrategy(IoStrategy.WORKER)
                    .workerExecutor(executor)
                    .workerStartTimeout(Duration.ofMillis(7))
                    .handlerTimeout(Duration.ofMillis(9))
                    .ioThreads(2)
                    .maxFrameSize(1)
                    .maxConnections(7)
                    .idleTimeout(Duration.ofMinutes(5))
                    .frameTimeout(Duration.ofMillis(1))
                    .drainTimeout(Duration.ZERO)
                    .maxPendingWriteBytes(1)
                    .maxCallsInFlightPerConnection(2));
    assertThat(c.inputProtocolFactory()).isSameAs(compact);
    assertThat(c.outputProtocolFactory()).isSameAs(json);
    assertThat(c.ioStrategy()).isEqualTo(IoStrategy.WORKER);
    assertThat(c.workerExecutor()).isSameAs(executor);
    assertThat(c.workerStartTimeout()).isEqualTo(Duration.ofMillis(7));
    assertThat(c.handlerTimeout()).isEqualTo(Duration.ofMillis(9));
    assertThat(c.ioThreads()).isEqualTo(2);
    assertThat(c.maxFrameSize()).isEqualTo(1);
    assertThat(c.maxConnections()).isEqualTo(7);
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.frameTimeout()).isEqualTo(Duration.ofMillis(1));
    assertThat(c.drainTimeout()).isEqualTo(Duration.ZERO);
    assertThat(c.maxPendingWriteBytes()).isEqualTo(1);
    assertThat(c.maxCallsInFlightPerConnection()).isEqualTo(2);
    assertThat(c.toString())
        .contains("workerThreads=external")
        .contains("handlerTimeout=PT0.009S")
        .contains("maxCallsInFlightPerConnection=2");

    ServerConfig same = build(b -> b.protocol(compact));
    assertThat(same.inputProtocolFactory()).isSameAs(compact);
    assertThat(same.outputProtocolFactory()).isSameAs(compact);
  }

  @Test
  void asyncProcessorAlone() {
    TBaseAsyncProcessor<Object> async = new TBaseAsyncProcessor<>(new Object(), java.util.Map.of());
    ServerConfig c = new StubBuilder().asyncProcessor(async).bind(ADDRESS).build().config();
    assertThat(c.asyncProcessor()).isSameAs(async);
    assertThat(c.processor()).isNull();
  }

  @Test
  void limitsAtTheirBoundary() {
    assertThat(build(b -> b.maxFrameSize(Integer.MAX_VALUE)).maxFrameSize())
        .isEqualTo(Integer.MAX_VALUE);
    assertRejected(b -> b.maxFrameSize(0), "maxFrameSize: 0 (expected: > 0)");
    assertRejected(b -> b.maxFrameSize(-1), "maxFrameSize: -1 (expected: > 0)");
    assertRejected(
        b -> b.maxFrameSize(Integer.MIN_VALUE), "maxFrameSize: -2147483648 (expected: > 0)");

    assertRejected(b -> b.workerThreads(0), "workerThreads: 0 (expected: > 0)");
    assertRejected(b -> b.workerThreads(-1), "workerThreads: -1 (expected: > 0)");
    assertRejected(b -> b.workerQueueCapacity(0), "workerQueueCapacity: 0 (expected: > 0)");
    assertRejected(b -> b.ioThreads(0), "ioThreads: 0 (expected: > 0)");
    assertRejected(b -> b.maxConnections(0), "maxConnections: 0 (expected: > 0)");
    assertRejected(b -> b.maxConnections(-5), "maxConnections: -5 (expected: > 0)");
    assertRejected(b -> b.maxPendingWriteBytes(0), "maxPendingWriteBytes: 0 (expected: > 0)");
    assertRejected(
        b -> b.maxCallsInFlightPerConnection(0),
        "maxCallsInFlightPerConnection: 0 (expected: > 0)");
    assertRejected(
        b -> b.maxCallsInFlightPerConnection(-3),
        "maxCallsInFlightPerConnection: -3 (expected: > 0)");
    assertThat(build(b -> b.maxCallsInFlightPerConnection(1)).maxCallsInFlightPerConnection())
        .isEqualTo(1);
    assertThat(build(b -> b.workerThreads(1).workerQueueCapacity(1).ioThreads(1).maxConnections(1)))
        .satisfies(
            c -> {
              assertThat(c.workerThreads()).isEqualTo(1);
              assertThat(c.workerQueueCapacity()).isEqualTo(1);
              assertThat(c.ioThreads()).isEqualTo(1);
              assertThat(c.maxConnections()).isEqualTo(1);
            });
  }

  @Test
  void durationsAtTheirBoundary() {
    Duration minusOne = Duration.ofNanos(-1);
    assertRejected(
        b -> b.idleTimeout(minusOne), "idleTimeout: PT-0.000000001S (expected: >= 0, 0 = off)");
    assertRejected(b -> b.idleTimeout(null), "idleTimeout: null (expected: >= 0, 0 = off)");
    assertRejected(
        b -> b.drainTimeout(Duration.ofSeconds(-1)),
        "drainTimeout: PT-1S (expected: >= 0, 0 = off)");
    assertRejected(b -> b.frameTimeout(Duration.ZERO), "frameTimeout: PT0S (expected: > 0)");
    assertRejected(b -> b.frameTimeout(minusOne), "frameTimeout: PT-0.000000001S (expected: > 0)");
    assertRejected(b -> b.frameTimeout(null), "frameTimeout: null (expected: > 0)");
    assertThat(build(b -> b.frameTimeout(Duration.ofNanos(1))).frameTimeout())
        .isEqualTo(Duration.ofNanos(1));
    assertThat(build(b -> b.idleTimeout(Duration.ZERO)).idleTimeout()).isZero();
    assertRejected(
        b -> b.workerStartTimeout(Duration.ZERO), "workerStartTimeout: PT0S (expected: > 0)");
    assertThat(build(b -> b.workerStartTimeout(null)).workerStartTimeout())
        .as("null is unset: the default")
        .isEqualTo(ServerBuilder.DEFAULT_WORKER_START_TIMEOUT);
    assertThat(build(b -> b.workerStartTimeout(Duration.ofNanos(1))).workerStartTimeout())
        .isEqualTo(Duration.ofNanos(1));
    assertRejected(
        b -> b.handlerTimeout(Duration.ofSeconds(-1)),
        "handlerTimeout: PT-1S (expected: >= 0, 0 = off)");
    assertRejected(
        b -> b.handlerTimeout(minusOne),
        "handlerTimeout: PT-0.000000001S (expected: >= 0, 0 = off)");
    assertRejected(b -> b.handlerTimeout(null), "handlerTimeout: null (expected: >= 0, 0 = off)");
    assertThat(build(b -> b.handlerTimeout(Duration.ZERO)).handlerTimeout()).isZero();
    assertThat(build(b -> b.handlerTimeout(Duration.ofNanos(1))).handlerTimeout())
        .isEqualTo(Duration.ofNanos(1));
  }

  @Test
  void theConnectionAgeAndItsGrace() {
    ServerConfig unset = build(b -> b);
    assertThat(unset.maxConnectionAge()).as("never, by default").isNull();
    assertThat(unset.maxConnectionAgeGrace()).as("never forced, by default").isNull();
    assertThat(unset.toString()).doesNotContain("maxConnectionAge");
    assertRejected(
        b -> b.maxConnectionAge(Duration.ZERO), "maxConnectionAge: PT0S (expected: > 0)");
    assertRejected(
        b -> b.maxConnectionAge(Duration.ofNanos(-1)),
        "maxConnectionAge: PT-0.000000001S (expected: > 0)");
    assertRejected(
        b -> b.maxConnectionAge(Duration.ofMinutes(5)).maxConnectionAgeGrace(Duration.ofNanos(-1)),
        "maxConnectionAgeGrace: PT-0.000000001S (expected: >= 0)");
    assertThatThrownBy(() -> build(b -> b.maxConnectionAgeGrace(Duration.ofSeconds(30))))
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "maxConnectionAgeGrace: PT30S (expected: unset; ignored with maxConnectionAge unset"
                + " (never aged))");
    ServerConfig c =
        build(b -> b.maxConnectionAge(Duration.ofNanos(1)).maxConnectionAgeGrace(Duration.ZERO));
    assertThat(c.maxConnectionAge()).isEqualTo(Duration.ofNanos(1));
    assertThat(c.maxConnectionAgeGrace()).isZero();
    assertThat(c.toString())
        .contains("maxConnectionAge=PT0.000000001S, maxConnectionAgeGrace=PT0S");
    assertThat(build(b -> b.maxConnectionAge(Duration.ofMinutes(5)).maxConnectionAge(null)))
        .extracting(ServerConfig::maxConnectionAge)
        .as("null is unset")
        .isNull();
  }

  @Test
  void aWorkerPoolThatDiscardsTasksIsRejected() {
    for (RejectedExecutionHandler policy :
        List.of(
            new ThreadPoolExecutor.DiscardPolicy(), new ThreadPoolExecutor.DiscardOldestPolicy())) {
      ThreadPoolExecutor pool =
          new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new SynchronousQueue<>(), policy);
      try {
        assertThatThrownBy(() -> build(b -> b.workerExecutor(pool)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(
                "workerExecutor: "
                    + pool
                    + " with rejection handler "
                    + policy.getClass().getName()
                    + " (expected: a handler that runs or rejects every task, e.g."
                    + " ThreadPoolExecutor.AbortPolicy; a discarded call would never be answered)");
      } finally {
        pool.shutdownNow();
      }
    }
    for (RejectedExecutionHandler policy :
        List.of(new ThreadPoolExecutor.AbortPolicy(), new ThreadPoolExecutor.CallerRunsPolicy())) {
      ThreadPoolExecutor pool =
          new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new SynchronousQueue<>(), policy);
      try {
        assertThat(build(b -> b.workerExecutor(pool)).workerExecutor()).isSameAs(pool);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void wireKindsAreASetAndNullsAreRefusedAtBuild() {
    assertThat(
            build(b -> b.wireKinds(WireKind.UNFRAMED, WireKind.FRAMED, WireKind.UNFRAMED))
                .wireKinds())
        .containsExactly(WireKind.FRAMED, WireKind.UNFRAMED);
    assertThat(build(b -> b.wireKinds(WireKind.UNFRAMED)).wireKinds())
        .containsExactly(WireKind.UNFRAMED);
    assertThat(build(b -> b.wireKinds(WireKind.UNFRAMED)).toString())
        .contains("wireKinds=[UNFRAMED]");
    assertRejected(
        b -> b.wireKinds(WireKind.FRAMED, (WireKind) null),
        "wireKinds[1]: null (expected: one of [FRAMED, UNFRAMED, HTTP, HEADER, SASL])");
    assertRejected(
        b -> b.wireKinds(null),
        "wireKinds[0]: null (expected: one of [FRAMED, UNFRAMED, HTTP, HEADER, SASL])");
  }

  private static final ServerSasl PLAIN_IN_CLEAR =
      ServerSasl.builder().plain((user, password) -> false).plainWithoutTls(true).build();

  private static void assertRefused(UnaryOperator<StubBuilder> settings, String message) {
    assertThatThrownBy(() -> build(settings))
        .isInstanceOf(SettingException.class)
        .hasMessageContaining(message);
  }

  @Test
  void saslSettingsGoWithSaslAndOnlyWithIt() {
    ServerConfig c = build(b -> b.wireKinds(WireKind.SASL).sasl(PLAIN_IN_CLEAR));
    assertThat(c.sasl()).isSameAs(PLAIN_IN_CLEAR);
    assertThat(c.toString()).contains("sasl=ServerSasl{mechanisms=[PLAIN]");
    assertThat(build(b -> b).sasl()).as("default").isNull();
    assertRefused(
        b -> b.wireKinds(WireKind.FRAMED, WireKind.SASL),
        "sasl: null (expected: set when wireKinds has SASL)");
    assertRefused(
        b -> b.sasl(PLAIN_IN_CLEAR), "(expected: null when wireKinds has no SASL: [FRAMED])");
  }

  @Test
  void aFrameLimitWhoseLengthsCouldStartWithSaslsStartIsRefused() {
    int largestUnambiguous = (1 << 24) - 1;
    assertThat(
            build(
                    b ->
                        b.wireKinds(WireKind.FRAMED, WireKind.SASL)
                            .sasl(PLAIN_IN_CLEAR)
                            .maxFrameSize(largestUnambiguous))
                .maxFrameSize())
        .isEqualTo(largestUnambiguous);
    assertRefused(
        b ->
            b.wireKinds(WireKind.HEADER, WireKind.SASL)
                .sasl(PLAIN_IN_CLEAR)
                .maxFrameSize(largestUnambiguous + 1),
        "maxFrameSize: 16777216 (expected: < 16777216 with wireKinds [HEADER, SASL]");
    assertThat(
            build(
                    b ->
                        b.wireKinds(WireKind.SASL)
                            .sasl(PLAIN_IN_CLEAR)
                            .maxFrameSize(largestUnambiguous + 1))
                .maxFrameSize())
        .as("SASL alone: its frames follow COMPLETE, nothing to tell apart")
        .isEqualTo(largestUnambiguous + 1);
  }

  @Test
  void plainWithoutTlsIsRefusedUnlessAllowed() {
    ServerSasl plain = ServerSasl.builder().plain((user, password) -> false).build();
    assertRefused(
        b -> b.wireKinds(WireKind.SASL).sasl(plain),
        "sasl: PLAIN without tls (expected: a tls setting, as PLAIN sends passwords in clear;");
    assertThat(build(b -> b.wireKinds(WireKind.SASL).sasl(PLAIN_IN_CLEAR)).sasl().plainWithoutTls())
        .isTrue();
  }

  @Test
  void httpPathIsValidatedAtBuild() {
    ServerConfig c = build(b -> b.wireKinds(WireKind.HTTP).httpPath("/thrift"));
    assertThat(c.httpPath()).isEqualTo("/thrift");
    assertThat(c.toString()).contains("wireKinds=[HTTP], httpPath=/thrift");
    assertRejected(
        b -> b.httpPath("thrift"),
        "httpPath: 'thrift' (expected: an absolute path, starting with /, without query or"
            + " spaces)");
    assertRejected(
        b -> b.httpPath("/a?b"),
        "httpPath: '/a?b' (expected: an absolute path, starting with /, without query or spaces)");
    assertThat(build(b -> b.wireKinds(WireKind.HTTP).httpPath(null)).httpPath())
        .as("null is unset: the default")
        .isEqualTo(ServerBuilder.DEFAULT_HTTP_PATH);
  }

  @Test
  void healthPathIsValidatedAtBuild() {
    ServerConfig c = build(b -> b.wireKinds(WireKind.HTTP).healthPath("/health"));
    assertThat(c.toString()).contains("httpPath=/, healthPath=/health");
    assertRejected(
        b -> b.wireKinds(WireKind.HTTP).healthPath("health"),
        "healthPath: 'health' (expected: an absolute path, starting with /, without query or"
            + " spaces)");
    assertThat(build(b -> b.wireKinds(WireKind.HTTP).healthPath(null)).healthPath())
        .as("null is unset: no probe")
        .isNull();
  }

  @Test
  void nullStrategyIsRejected() {
    assertRejected(b -> b.ioStrategy(null), "ioStrategy: null (expected: not null)");
  }

  private static void assertRejected(UnaryOperator<StubBuilder> settings, String message) {
    assertThatThrownBy(() -> build(settings))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void exactlyOneProcessorIsRequired() {
    assertThatThrownBy(() -> new StubBuilder().bind(ADDRESS).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("processor: null, asyncProcessor: null (expected: exactly one of them)");
    TBaseAsyncProcessor<Object> async = new TBaseAsyncProcessor<>(new Object(), java.util.Map.of());
    assertThatThrownBy(() -> minimal().asyncProcessor(async).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("processor: ")
        .hasMessageContaining("asyncProcessor: " + async)
        .hasMessageEndingWith("(expected: exactly one of them)");
  }

  @Test
  void bindAddressIsRequired() {
    assertThatThrownBy(() -> new StubBuilder().processor(PROCESSOR).build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("bindAddress: null (expected: ");
  }

  @Test
  void halfAProtocolPairIsRejected() {
    TProtocolFactory compact = new TCompactProtocol.Factory();
    assertThatThrownBy(() -> build(b -> b.protocol(compact, null)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("inputProtocolFactory: " + compact)
        .hasMessageContaining("outputProtocolFactory: null")
        .hasMessageEndingWith("(expected: both set or neither)");
  }

  @Test
  void theConfigIsASnapshotOfTheBuilder() {
    StubBuilder b = minimal().maxFrameSize(1000);
    ServerConfig first = b.build().config();
    b.maxFrameSize(2000).workerThreads(1);
    assertThat(first.maxFrameSize()).isEqualTo(1000);
    assertThat(first.workerThreads()).isEqualTo(64);
    assertThat(b.build().config().maxFrameSize()).isEqualTo(2000);
  }

  @Test
  void interceptorsKeepTheirOrderAndNullsAreRefusedAtBuild() {
    ServerInterceptor a = new ServerInterceptor() {};
    ServerInterceptor b = new ServerInterceptor() {};
    ServerInterceptor c = new ServerInterceptor() {};
    assertThat(minimal().build().config().interceptors()).as("default: none").isEmpty();
    assertThat(build(x -> x.interceptors(List.of(a, b)).addInterceptor(c)).interceptors())
        .containsExactly(a, b, c);
    assertThat(build(x -> x.addInterceptor(a).interceptors(List.of(b))).interceptors())
        .as("interceptors(list) replaces")
        .containsExactly(b);
    assertThat(build(x -> x.addInterceptor(a)).toString()).contains("interceptors=1");
    assertThatThrownBy(() -> build(x -> x.addInterceptor(a).addInterceptor(null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("interceptors[1]: null (expected: an interceptor)");
    assertThatThrownBy(() -> build(x -> x.interceptors(null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("interceptors: null (expected: a list, empty for none)");
  }
}
