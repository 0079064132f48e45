package io.thriftnio.it.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.opentelemetry.ThriftTracing;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.thrift.TException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One call through three services, A -> B -> C, each a server of its own whose handler calls the
 * next through a pool, over THeader and over HTTP: the trace context and the deadline cross every
 * hop in the request headers. The exported spans form one trace, client -> A server -> A's client
 * -> B server -> B's client -> C server, each the parent of the next; and C is given less time than
 * A had.
 *
 * <p>A and C run on Netty, B on Grizzly. The inner hops use the sync {@link ThriftClientPool}: its
 * calls start on the handler's own thread, where the server made the call's span current.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TracingChainTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");

  /** The caller's budget for the whole chain. */
  private static final Duration DEADLINE = Duration.ofSeconds(10);

  /**
   * A's pool's own call timeout, below what A has left: B gets this much. B's pool keeps the
   * default (30 s), so C gets less than B only by inheriting B's deadline.
   */
  private static final Duration A_TO_B_TIMEOUT = Duration.ofSeconds(5);

  enum Wire {
    HEADER(WireKind.HEADER),
    HTTP(WireKind.HTTP);

    final WireKind kind;

    Wire(WireKind kind) {
      this.kind = kind;
    }
  }

  /** Each service's time left, as its handler saw it when it started. */
  private final Map<String, Optional<Duration>> timeLeft = new ConcurrentHashMap<>();

  /** Echoes, through the next service if there is one. */
  private final class Hop extends BenchHandler {
    private final String name;
    private final Supplier<ThriftClientPool<BenchService.Client>> next;

    Hop(String name, Supplier<ThriftClientPool<BenchService.Client>> next) {
      this.name = name;
      this.next = next;
    }

    @Override
    public ByteBuffer echo(ByteBuffer payload) {
      timeLeft.put(name, ServerCallContext.current().timeRemaining());
      if (next == null) {
        return super.echo(payload);
      }
      try {
        return next.get().call(c -> c.echo(payload));
      } catch (TException e) {
        throw new IllegalStateException(name + " could not call the next service", e);
      }
    }
  }

  private static ThriftServer server(
      Supplier<? extends ServerBuilder<?>> builder, Hop handler, ThriftTracing tracing)
      throws Exception {
    return builder
        .get()
        .processor(new BenchService.Processor<>(handler))
        .wireKinds(WireKind.FRAMED, WireKind.HEADER, WireKind.HTTP)
        .ioStrategy(IoStrategy.WORKER) // the handlers block on the next hop
        .addInterceptor(tracing.serverInterceptor())
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .build()
        .start();
  }

  private static ThriftClientPool<BenchService.Client> pool(
      NettyClientIo io, Wire wire, ThriftServer to, Duration callTimeout, ThriftTracing tracing) {
    return ThriftClientPool.builder(BenchService.Client::new)
        .io(io)
        .options(ClientOptions.builder().wireKind(wire.kind).callTimeout(callTimeout).build())
        .endpoints(to.localAddress())
        .interceptors(List.of(tracing.clientInterceptor()))
        .build();
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void oneTraceFromTheCallerToCAndLessTimeAtEachHop(Wire wire) throws Exception {
    ThriftTracing tracing = ThriftTracing.create(otel.getOpenTelemetry(), "BenchService");
    List<ThriftClientPool<BenchService.Client>> inner = new ArrayList<>(2); // [A->B, B->C]
    try (NettyClientIo io = NettyClientIo.create(2);
        ThriftServer c = server(NettyThriftServer::builder, new Hop("C", null), tracing);
        ThriftServer b =
            server(GrizzlyThriftServer::builder, new Hop("B", () -> inner.get(1)), tracing);
        ThriftServer a =
            server(NettyThriftServer::builder, new Hop("A", () -> inner.get(0)), tracing);
        ThriftClientPool<BenchService.Client> aToB = pool(io, wire, b, A_TO_B_TIMEOUT, tracing);
        ThriftClientPool<BenchService.Client> bToC =
            pool(io, wire, c, ClientOptions.DEFAULT_CALL_TIMEOUT, tracing);
        ThriftChannelPool<BenchService.Client> caller =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(io)
                .options(ClientOptions.builder().wireKind(wire.kind).build())
                .endpoints(a.localAddress())
                .interceptors(List.of(tracing.clientInterceptor()))
                .build()) {
      inner.add(aToB);
      inner.add(bToC);

      ByteBuffer reply =
          caller
              .call(
                  DEADLINE,
                  client -> client.send_echo(ByteBuffer.wrap(new byte[] {1, 2, 3})),
                  BenchService.Client::recv_echo)
              .get(30, TimeUnit.SECONDS);
      assertThat(reply).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));

      // Every span ended before the reply it belongs to was passed on: all are exported by now.
      List<SpanData> chain = chainFromTheRoot(otel.getSpans());
      assertThat(chain)
          .extracting(SpanData::getKind)
          .containsExactly(
              SpanKind.CLIENT,
              SpanKind.SERVER,
              SpanKind.CLIENT,
              SpanKind.SERVER,
              SpanKind.CLIENT,
              SpanKind.SERVER);
      long[] ports = {
        a.localAddress().getPort(), b.localAddress().getPort(), c.localAddress().getPort()
      };
      for (int hop = 0; hop < 3; hop++) {
        assertThat(chain.get(2 * hop).getAttributes().get(SERVER_PORT))
            .as("client span %s calls %s", hop, "ABC".charAt(hop))
            .isEqualTo(ports[hop]);
        assertThat(chain.get(2 * hop + 1).getAttributes().get(SERVER_PORT))
            .as("server span %s is %s's", hop, "ABC".charAt(hop))
            .isEqualTo(ports[hop]);
      }
      assertThat(chain).allSatisfy(s -> assertThat(s.getName()).isEqualTo("BenchService/echo"));

      // client_timeout is whole milliseconds, rounded up by the sender: a hop may gain up to 1 ms.
      Duration atA = timeLeft.get("A").orElseThrow(() -> new AssertionError("A had no deadline"));
      Duration atC = timeLeft.get("C").orElseThrow(() -> new AssertionError("C had no deadline"));
      assertThat(atA).isPositive().isLessThanOrEqualTo(DEADLINE);
      assertThat(atC)
          .as("C inherits B's deadline, not its pool's 30 s")
          .isPositive()
          .isLessThanOrEqualTo(A_TO_B_TIMEOUT.plusMillis(1))
          .isLessThan(atA);
    }
  }

  /** The spans of one trace as a chain from its root, each the only child of the one before. */
  private static List<SpanData> chainFromTheRoot(List<SpanData> spans) {
    assertThat(spans).hasSize(6);
    assertThat(spans).extracting(SpanData::getTraceId).containsOnly(spans.get(0).getTraceId());
    List<SpanData> roots = spans.stream().filter(s -> !s.getParentSpanContext().isValid()).toList();
    assertThat(roots).as("one root: the caller's client span").hasSize(1);
    List<SpanData> chain = new ArrayList<>(List.of(roots.get(0)));
    while (chain.size() < spans.size()) {
      String parent = chain.get(chain.size() - 1).getSpanId();
      List<SpanData> children =
          spans.stream().filter(s -> s.getParentSpanId().equals(parent)).toList();
      assertThat(children).as("children of span %d of the chain", chain.size()).hasSize(1);
      chain.add(children.get(0));
    }
    return chain;
  }
}
