package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.NotRun;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.EchoCountingHandler;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.RecordingClientInterceptor;
import io.thriftnio.testkit.RecordingClientInterceptor.Ended;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TTupleProtocol;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PoolBuilder#interceptors} on each of the three pools: one before/after pair per Thrift
 * call (two calls in one pool lambda make two pairs), the method, endpoint and outcome of a
 * success, a declared exception, an application exception, a oneway message, a timeout and a
 * transport failure; a refusal the caller gets while the server never sees the call; the order of
 * two interceptors around one whose {@code afterCall} throws without changing anything.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PoolInterceptorsTest {

  /** Refuses {@code echo} while {@link #refuse} is set. */
  static final class EchoGate implements ClientInterceptor {
    final TException refusal = new TException("echo refused by the gate");
    volatile boolean refuse;

    @Override
    public void beforeCall(ClientCallContext context) throws TException {
      if (refuse && context.methodName().equals("echo")) {
        throw refusal;
      }
    }
  }

  private final EchoCountingHandler handler = new EchoCountingHandler();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final RecordingClientInterceptor outer = new RecordingClientInterceptor("outer", events);
  private final RecordingClientInterceptor inner = new RecordingClientInterceptor("inner", events);
  private final EchoGate gate = new EchoGate();

  /** outer, a throwing afterCall, the gate, inner: the chain every pool below gets. */
  private final List<ClientInterceptor> chain =
      List.of(outer, RecordingClientInterceptor.throwingAfterCall(), gate, inner);

  private StockServer server;
  private InetSocketAddress endpoint;

  @BeforeEach
  void start() throws Exception {
    server =
        StockServer.start(
            StockServer.Kind.THREADED_SELECTOR, new BenchService.Processor<>(handler));
    endpoint = server.address();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** The four outcomes a server can give, in the order the tests below make the calls. */
  private void assertServedOutcomes() {
    assertThat(inner.outcomes())
        .containsExactly(
            CallOutcome.SUCCESS,
            CallOutcome.DECLARED_EXCEPTION,
            CallOutcome.APPLICATION_EXCEPTION,
            CallOutcome.ONEWAY);
    assertThat(inner.ended())
        .extracting(e -> e.context().methodName())
        .containsExactly("echo", "fail", "fail", "fire");
    assertThat(inner.ended())
        .allSatisfy(
            e -> {
              assertThat(e.context().remoteAddress()).isEqualTo(endpoint);
              assertThat(e.nanos()).isPositive();
            });
    // A failure only for the TApplicationException of a reply: one like the caller's.
    List<Ended> ended = inner.ended();
    assertThat(ended.get(0).failure()).isNull();
    assertThat(ended.get(1).failure()).isNull();
    assertThat(ended.get(3).failure()).isNull();
    assertThat(ended.get(2).failure()).isInstanceOf(TApplicationException.class);
    assertThat(((TApplicationException) ended.get(2).failure()).getType())
        .isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(outer.outcomes()).isEqualTo(inner.outcomes());
    assertThat(events.subList(0, 4))
        .containsExactly(
            "before outer echo",
            "before inner echo",
            "after inner echo SUCCESS",
            "after outer echo SUCCESS");
  }

  /**
   * After the outcomes, whose one echo the server served: the gate refused the next echo, and the
   * caller got {@code failure}.
   */
  private void assertRefused(Throwable failure) {
    assertThat(failure).isSameAs(gate.refusal);
    assertThat(handler.echoes()).isEqualTo(1);
    Ended refused = outer.ended().get(outer.ended().size() - 1);
    assertThat(refused.outcome()).isEqualTo(CallOutcome.REFUSED);
    assertThat(refused.failure()).isSameAs(gate.refusal);
    assertThat(inner.ended()).hasSize(4); // its beforeCall never ran
  }

  @Test
  void syncPoolOnePairPerThriftCallEvenInOneLambda() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(endpoint)
            .interceptors(chain)
            .build()) {
      pool.call(
          c -> {
            c.echo(ByteBuffer.allocate(3));
            assertThatThrownBy(() -> c.fail(7, "declared")).isInstanceOf(BenchError.class);
            assertThatThrownBy(() -> c.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x"))
                .isInstanceOf(TApplicationException.class);
            c.fire(ByteBuffer.allocate(1));
            return null;
          });
      assertServedOutcomes();
      assertThat(inner.ended()).extracting(e -> e.context().seqId()).doesNotHaveDuplicates();

      gate.refuse = true;
      assertRefused(catchThrowable(() -> pool.call(c -> c.echo(ByteBuffer.allocate(3)))));
      // Nothing was written: the connection went back to the pool and serves the next call, the
      // server's second echo.
      gate.refuse = false;
      pool.call(c -> c.echo(ByteBuffer.allocate(3)));
      assertThat(handler.echoes()).isEqualTo(2);
      assertThat(pool.stats().created()).isEqualTo(1);
      assertThat(pool.stats().invalidated()).isZero();
    }
  }

  @Test
  void syncPoolTellsTimeoutsAndTransportFailures() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(peer.address())
                .options(
                    ClientOptions.builder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .callTimeout(Duration.ofMillis(300))
                        .build())
                .interceptors(List.of(inner))
                .build()) {
      peer.mode = StubPeer.Mode.STALL;
      Throwable timeout = catchThrowable(() -> pool.call(c -> c.fired()));
      peer.mode = StubPeer.Mode.WRONG_SEQID;
      Throwable wrongReply = catchThrowable(() -> pool.call(c -> c.fired()));

      assertThat(((TTransportException) timeout).getType())
          .isEqualTo(TTransportException.TIMED_OUT);
      assertThat(wrongReply).isInstanceOf(TApplicationException.class);
      assertThat(inner.outcomes())
          .containsExactly(CallOutcome.TIMED_OUT, CallOutcome.TRANSPORT_FAILURE);
      assertThat(inner.ended()).extracting(Ended::failure).containsExactly(timeout, wrongReply);
    }
  }

  @Test
  void asyncClientPool() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
            .endpoints(endpoint)
            .interceptors(chain)
            .build()) {
      pool.<ByteBuffer>call((c, cb) -> c.echo(ByteBuffer.allocate(3), cb))
          .get(10, TimeUnit.SECONDS);
      assertThat(failureOf(pool.<Void>call((c, cb) -> c.fail(7, "declared", cb))))
          .isInstanceOf(BenchError.class);
      assertThat(
              failureOf(
                  pool.<Void>call(
                      (c, cb) -> c.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x", cb))))
          .isInstanceOf(TApplicationException.class);
      pool.<Void>call((c, cb) -> c.fire(ByteBuffer.allocate(1), cb)).get(10, TimeUnit.SECONDS);
      assertServedOutcomes();

      gate.refuse = true;
      assertRefused(
          failureOf(pool.<ByteBuffer>call((c, cb) -> c.echo(ByteBuffer.allocate(3), cb))));
    }
  }

  @Test
  void asyncClientPoolTellsTimeouts() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(peer.address())
                .options(ClientOptions.builder().callTimeout(Duration.ofMillis(300)).build())
                .interceptors(List.of(inner))
                .build()) {
      peer.mode = StubPeer.Mode.STALL;
      Throwable timeout = failureOf(pool.<Long>call((c, cb) -> c.fired(cb)));

      assertThat(timeout).isInstanceOf(CallTimeoutException.class);
      assertThat(inner.only().outcome()).isEqualTo(CallOutcome.TIMED_OUT);
      assertThat(inner.only().failure()).isSameAs(timeout);
    }
  }

  @Test
  void channelPool() throws Exception {
    try (NettyClientIo resources = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.defaults())
                .endpoints(endpoint)
                .interceptors(chain)
                .build()) {
      pool.call(c -> c.send_echo(ByteBuffer.allocate(3)), BenchService.Client::recv_echo)
          .get(10, TimeUnit.SECONDS);
      assertThat(
              failureOf(pool.call(c -> c.send_fail(7, "declared"), PoolInterceptorsTest::recvFail)))
          .isInstanceOf(BenchError.class);
      assertThat(
              failureOf(
                  pool.call(
                      c -> c.send_fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x"),
                      PoolInterceptorsTest::recvFail)))
          .isInstanceOf(TApplicationException.class);
      pool.callOneway(c -> c.send_fire(ByteBuffer.allocate(1))).get(10, TimeUnit.SECONDS);
      assertServedOutcomes();

      gate.refuse = true;
      assertRefused(
          failureOf(
              pool.call(c -> c.send_echo(ByteBuffer.allocate(3)), BenchService.Client::recv_echo)));
      // Nothing was written: the connection stayed open and in the pool, and carries the server's
      // second echo.
      gate.refuse = false;
      pool.call(c -> c.send_echo(ByteBuffer.allocate(3)), BenchService.Client::recv_echo)
          .get(10, TimeUnit.SECONDS);
      assertThat(handler.echoes()).isEqualTo(2);
      assertThat(pool.stats().created()).isEqualTo(1);
    }
  }

  @Test
  void channelPoolTellsTimeouts() throws Exception {
    try (StubPeer peer = StubPeer.start();
        NettyClientIo resources = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.builder().callTimeout(Duration.ofMillis(300)).build())
                .endpoints(peer.address())
                .interceptors(List.of(inner))
                .build()) {
      peer.mode = StubPeer.Mode.STALL;
      Throwable timeout =
          failureOf(pool.call(c -> c.send_fired(), BenchService.Client::recv_fired));

      assertThat(((TTransportException) timeout).getType())
          .isEqualTo(TTransportException.TIMED_OUT);
      assertThat(inner.only().outcome()).isEqualTo(CallOutcome.TIMED_OUT);
      assertThat(inner.only().failure()).isSameAs(timeout);
    }
  }

  /**
   * A channel pool whose connection answers on the calling thread, so a call's reply is there
   * before the pool's caller registers its continuation: that continuation (the reply's decoding,
   * the async interface's callback) still runs inside the interceptors' {@code attach} scope, with
   * and without the adaptive limit and a call deadline (each adds a future of its own).
   */
  @ParameterizedTest
  @ValueSource(strings = {"plain", "adaptiveLimit", "callDeadline", "both"})
  void channelPoolLateCallbackRunsInsideTheAttachScope(String setting) throws Exception {
    ThreadLocal<String> current = new ThreadLocal<>();
    ClientInterceptor attaching = attachingTo(current);
    ThriftChannelPool.Builder<BenchService.Client> builder =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(new InlineIo(new BenchService.Processor<>(handler)))
            .endpoints(endpoint)
            .interceptors(List.of(attaching));
    if (setting.equals("adaptiveLimit") || setting.equals("both")) {
      builder.adaptiveLimit(8);
    }
    if (setting.equals("callDeadline") || setting.equals("both")) {
      builder.callDeadline(Duration.ofSeconds(10));
    }
    try (ThriftChannelPool<BenchService.Client> pool = builder.build()) {
      // The first call opens the connection (on a connector thread); the second finds it open.
      pool.call(c -> c.send_echo(ByteBuffer.allocate(3)), BenchService.Client::recv_echo)
          .get(10, TimeUnit.SECONDS);
      // The reply is decoded, and the async interface's callback runs, on the pool's executor.
      AtomicReference<String> decodedIn = new AtomicReference<>();
      pool.call(
              c -> c.send_echo(ByteBuffer.allocate(3)),
              c -> {
                decodedIn.set(current.get());
                return c.recv_echo();
              })
          .get(10, TimeUnit.SECONDS);
      CompletableFuture<String> calledBackIn = new CompletableFuture<>();
      pool.asyncIface(BenchService.AsyncIface.class)
          .echo(
              ByteBuffer.allocate(3),
              new AsyncMethodCallback<>() {
                @Override
                public void onComplete(ByteBuffer response) {
                  calledBackIn.complete(current.get());
                }

                @Override
                public void onError(Exception e) {
                  calledBackIn.completeExceptionally(e);
                }
              });
      assertThat(decodedIn.get())
          .as("the scope current as the reply is decoded")
          .isEqualTo("call echo");
      assertThat(calledBackIn.get(10, TimeUnit.SECONDS))
          .as("the scope current in the async interface's callback")
          .isEqualTo("call echo");
    }
  }

  /**
   * As {@link #channelPoolLateCallbackRunsInsideTheAttachScope}, for a call every endpoint refused
   * "not run": the pool ends it with the last refusal's reply, which the caller decodes inside the
   * scope too.
   */
  @Test
  void channelPoolLateRefusalIsDecodedInsideTheAttachScope() throws Exception {
    ThreadLocal<String> current = new ThreadLocal<>();
    ClientInterceptor attaching = attachingTo(current);
    TProcessor refusing =
        (in, out) -> {
          TMessage request = in.readMessageBegin();
          TProtocolUtil.skip(in, TType.STRUCT);
          in.readMessageEnd();
          out.writeMessageBegin(new TMessage(request.name, TMessageType.EXCEPTION, request.seqid));
          NotRun.exception("server overloaded: a test's").write(out);
          out.writeMessageEnd();
        };
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(new InlineIo(refusing))
            .endpoints(endpoint)
            .interceptors(List.of(attaching))
            .build()) {
      AtomicReference<String> decodedIn = new AtomicReference<>();
      for (int i = 0; i < 2; i++) { // the first opens the connection, the second finds it open
        decodedIn.set(null);
        Throwable failure =
            failureOf(
                pool.call(
                    c -> c.send_echo(ByteBuffer.allocate(3)),
                    c -> {
                      decodedIn.set(current.get());
                      return c.recv_echo();
                    }));
        assertThat(failure)
            .isInstanceOf(TApplicationException.class)
            .hasMessageStartingWith("not run: ");
      }
      assertThat(decodedIn.get())
          .as("the scope current as the refusal is decoded")
          .isEqualTo("call echo");
    }
  }

  /** An interceptor whose {@code attach} makes {@code call <method>} current in {@code current}. */
  private static ClientInterceptor attachingTo(ThreadLocal<String> current) {
    return new ClientInterceptor() {
      @Override
      public Runnable attach(ClientCallContext context) {
        current.set("call " + context.methodName());
        return current::remove;
      }
    };
  }

  /** Connections that run each exchange through {@code processor} on the calling thread. */
  private static final class InlineIo implements ClientIo {
    private final TProcessor processor;

    InlineIo(TProcessor processor) {
      this.processor = processor;
    }

    @Override
    public TTransport openTransport(InetSocketAddress address, ClientOptions options) {
      throw new UnsupportedOperationException("channels only");
    }

    @Override
    public ThriftChannel openChannel(InetSocketAddress address, ClientOptions options) {
      return new OpenChannel(address) {
        @Override
        public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
          byte[] in = new byte[request.remaining()];
          request.duplicate().get(in);
          try {
            TMemoryBuffer out = new TMemoryBuffer(64);
            processor.process(
                new TBinaryProtocol(new TMemoryInputTransport(in)), new TBinaryProtocol(out));
            return CompletableFuture.completedFuture(
                ByteBuffer.wrap(out.getArray(), 0, out.length()));
          } catch (TException e) {
            return CompletableFuture.failedFuture(e);
          }
        }
      };
    }

    @Override
    public void close() {}
  }

  @Test
  void aProtocolNoDecoratorCanStandInForIsRefusedAtBuild() {
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(endpoint)
                    .protocol(new TTupleProtocol.Factory())
                    .interceptors(chain)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "interceptors: not supported with " + TTupleProtocol.class.getName());
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(endpoint)
                    .interceptors(null)
                    .build())
        .hasMessage("interceptors: null (expected: a list, empty for none)");
  }

  private static Void recvFail(BenchService.Client c) throws TException {
    c.recv_fail();
    return null;
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return f.handle((ok, t) -> t).join();
  }

  private static Throwable catchThrowable(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    return org.assertj.core.api.Assertions.catchThrowable(call);
  }
}
