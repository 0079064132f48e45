package io.thriftnio.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The async call bridge over an in-memory channel served by the generated processors. */
@Timeout(30)
class AsyncClientsTest {

  private static final String CALLBACK_THREAD = "client-callbacks";
  private static final TProtocolFactory PROTOCOL = new TCompactProtocol.Factory();

  private final FaultInjectingHandler handler = new FaultInjectingHandler();
  private ExecutorService callbacks;
  private InMemoryChannel channel;
  private AsyncCaller<BenchService.Client> caller;

  @BeforeEach
  void setUp() {
    callbacks = Executors.newSingleThreadExecutor(r -> new Thread(r, CALLBACK_THREAD));
    channel =
        new InMemoryChannel(
            ProcessorInvoker.of(
                new BenchService.Processor<>(handler),
                PROTOCOL,
                PROTOCOL,
                Framing.DEFAULT_MAX_FRAME_SIZE));
    caller = AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, callbacks);
  }

  @AfterEach
  void tearDown() {
    channel.close();
    callbacks.shutdownNow();
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  /** The exception a failed future carries, unwrapped. */
  private static Throwable failure(CompletableFuture<?> f) {
    try {
      f.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("future did not fail in time", e);
    }
    throw new AssertionError("future completed normally");
  }

  private BenchService.AsyncIface proxy() {
    return AsyncClients.asyncIface(
        BenchService.AsyncIface.class, channel, BenchService.Client::new, PROTOCOL, callbacks);
  }

  // ---- AsyncCaller ----

  @Test
  void callEveryTwoWayMethod() throws Exception {
    ByteBuffer echoed =
        await(
            caller.call(
                c -> c.send_echo(Payloads.of(Payloads.MEDIUM, 3)), BenchService.Client::recv_echo));
    assertThat(Payloads.check(echoed, Payloads.MEDIUM, 3)).isTrue();

    TradeReport sale =
        await(
            caller.call(
                c -> c.send_get_last_sale("MSFT"), BenchService.Client::recv_get_last_sale));
    assertThat(sale).isEqualTo(new TradeReport("MSFT", 25.50, 100, 1));

    List<TestInfo> rows =
        await(caller.call(c -> c.send_db_work(20), BenchService.Client::recv_db_work));
    assertThat(rows).hasSize(20).element(19).isEqualTo(BenchHandler.row(19));

    Nested nested =
        await(caller.call(c -> c.send_get_nested(10), BenchService.Client::recv_get_nested));
    assertThat(nested).isEqualTo(BenchHandler.nested(10));

    Object slept =
        await(
            caller.call(
                c -> c.send_sleep(1),
                c -> {
                  c.recv_sleep();
                  return "slept";
                }));
    assertThat(slept).isEqualTo("slept");

    assertThat(await(caller.call(BenchService.Client::send_fired, BenchService.Client::recv_fired)))
        .isZero();
  }

  @Test
  void onewayCallCompletesWithNullAndReachesTheHandler() throws Exception {
    for (int i = 0; i < 5; i++) {
      int seed = i;
      assertThat(await(caller.callOneway(c -> c.send_fire(Payloads.of(10, seed))))).isNull();
    }
    assertThat(handler.fired()).isEqualTo(5);
    assertThat(handler.firedBytes()).isEqualTo(50);
    assertThat(await(caller.call(BenchService.Client::send_fired, BenchService.Client::recv_fired)))
        .isEqualTo(5L);
  }

  @Test
  void declaredExceptionIsTheFuturesException() {
    CompletableFuture<Object> f =
        caller.call(
            c -> c.send_fail(409, "conflict"),
            c -> {
              c.recv_fail();
              return null;
            });
    assertThat(failure(f)).isEqualTo(new BenchError(409, "conflict"));

    // get_nested declares no exception: its bad-argument BenchError arrives as INTERNAL_ERROR.
    CompletableFuture<Nested> bad =
        caller.call(c -> c.send_get_nested(-1), BenchService.Client::recv_get_nested);
    assertThat(failure(bad))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
  }

  @Test
  void applicationExceptionIsTheFuturesException() {
    CompletableFuture<Object> f =
        caller.call(
            c -> c.send_fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "bug"),
            c -> {
              c.recv_fail();
              return null;
            });
    assertThat(failure(f))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
  }

  @Test
  void channelFailureIsTheFuturesException() {
    TTransportException broken =
        new TTransportException(
            TTransportException.END_OF_FILE, "connection to in-memory closed, 1 call pending");
    channel.failWith(broken);
    assertThat(
            failure(
                caller.call(c -> c.send_echo(Payloads.of(1, 1)), BenchService.Client::recv_echo)))
        .isSameAs(broken);
    assertThat(failure(caller.callOneway(c -> c.send_fire(Payloads.of(1, 1))))).isSameAs(broken);
    assertThat(handler.fired()).isZero();
  }

  @Test
  void encodingFailureFailsTheFuture() throws Exception {
    TException encode = new TException("cannot encode");
    CompletableFuture<ByteBuffer> f =
        caller.call(
            c -> {
              throw encode;
            },
            BenchService.Client::recv_echo);
    assertThat(failure(f)).isSameAs(encode);
    assertThat(channel.callsInFlight()).isZero();

    // A request above the frame limit fails with FrameSizeException (the channel enforces the
    // limit).
    ByteBuffer tooBig = ByteBuffer.allocate(Framing.DEFAULT_MAX_FRAME_SIZE + 1);
    assertThat(failure(caller.call(c -> c.send_echo(tooBig), BenchService.Client::recv_echo)))
        .isInstanceOf(FrameSizeException.class);
  }

  @Test
  void decodingRunsOnTheGivenExecutorNotTheChannelThread() throws Exception {
    AtomicReference<String> decodedOn = new AtomicReference<>();
    ByteBuffer r =
        await(
            caller.call(
                c -> c.send_echo(Payloads.of(5, 5)),
                c -> {
                  decodedOn.set(Thread.currentThread().getName());
                  return c.recv_echo();
                }));
    assertThat(Payloads.check(r, 5, 5)).isTrue();
    assertThat(decodedOn.get()).isEqualTo(CALLBACK_THREAD);
  }

  @Test
  void manyCallsInFlightAreMatchedToTheirOwnReplies() throws Exception {
    List<CompletableFuture<ByteBuffer>> futures = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int seed = i;
      futures.add(
          caller.call(
              c -> c.send_echo(Payloads.of(64 + seed, seed)), BenchService.Client::recv_echo));
    }
    for (int i = 0; i < futures.size(); i++) {
      assertThat(Payloads.check(await(futures.get(i)), 64 + i, i)).as("call %d", i).isTrue();
    }
    assertThat(channel.callsInFlight()).isZero();
  }

  @Test
  void asyncProcessorOnTheOtherSideCompletesLater() throws Exception {
    InMemoryChannel asyncChannel =
        new InMemoryChannel(
            ProcessorInvoker.ofAsync(
                new BenchService.AsyncProcessor<>(new AsyncBenchHandler()),
                PROTOCOL,
                PROTOCOL,
                Framing.DEFAULT_MAX_FRAME_SIZE));
    try {
      AsyncCaller<BenchService.Client> c2 =
          AsyncCaller.of(asyncChannel, BenchService.Client::new, PROTOCOL, callbacks);
      CompletableFuture<Object> sleep =
          c2.call(
              c -> c.send_sleep(200),
              c -> {
                c.recv_sleep();
                return Thread.currentThread().getName();
              });
      CompletableFuture<TradeReport> quick =
          c2.call(c -> c.send_get_last_sale("Q"), BenchService.Client::recv_get_last_sale);
      assertThat(await(quick).getSymbol()).isEqualTo("Q");
      assertThat(await(sleep)).isEqualTo(CALLBACK_THREAD);
    } finally {
      asyncChannel.close();
    }
  }

  // ---- the AsyncIface proxy ----

  /** Records the callback outcome and its thread. */
  static final class Callback<T> implements AsyncMethodCallback<T> {
    final CompletableFuture<T> future = new CompletableFuture<>();
    final AtomicReference<String> thread = new AtomicReference<>();

    @Override
    public void onComplete(T response) {
      thread.set(Thread.currentThread().getName());
      future.complete(response);
    }

    @Override
    public void onError(Exception exception) {
      thread.set(Thread.currentThread().getName());
      future.completeExceptionally(exception);
    }
  }

  @Test
  void proxyImplementsEveryMethod() throws Exception {
    BenchService.AsyncIface iface = proxy();

    Callback<ByteBuffer> echo = new Callback<>();
    iface.echo(Payloads.of(Payloads.SMALL, 8), echo);
    assertThat(Payloads.check(await(echo.future), Payloads.SMALL, 8)).isTrue();
    assertThat(echo.thread.get()).isEqualTo(CALLBACK_THREAD);

    Callback<TradeReport> sale = new Callback<>();
    iface.get_last_sale("GOOG", sale);
    assertThat(await(sale.future)).isEqualTo(new TradeReport("GOOG", 25.50, 100, 1));

    Callback<List<TestInfo>> rows = new Callback<>();
    iface.db_work(3, rows);
    assertThat(await(rows.future))
        .containsExactly(BenchHandler.row(0), BenchHandler.row(1), BenchHandler.row(2));

    Callback<Nested> nested = new Callback<>();
    iface.get_nested(2, nested);
    assertThat(await(nested.future)).isEqualTo(BenchHandler.nested(2));

    Callback<Void> sleep = new Callback<>();
    iface.sleep(1, sleep);
    assertThat(await(sleep.future)).isNull();

    Callback<Void> fail = new Callback<>();
    iface.fail(451, "unavailable", fail);
    assertThat(failure(fail.future)).isEqualTo(new BenchError(451, "unavailable"));
    assertThat(fail.thread.get()).isEqualTo(CALLBACK_THREAD);

    Callback<Void> fire = new Callback<>();
    iface.fire(Payloads.of(7, 7), fire);
    assertThat(await(fire.future)).isNull();
    assertThat(fire.thread.get()).isEqualTo(CALLBACK_THREAD);

    Callback<Long> fired = new Callback<>();
    iface.fired(fired);
    assertThat(await(fired.future)).isEqualTo(1L);
  }

  /**
   * Even when a reply is complete before the proxy call returns (an instant peer), the callback
   * runs on the executor, never on the thread that called the proxy.
   */
  @Test
  void proxyCallbacksRunOnTheExecutorEvenForInstantReplies() throws Exception {
    InMemoryChannel instant =
        new InMemoryChannel(
            ProcessorInvoker.of(
                new BenchService.Processor<>(handler),
                PROTOCOL,
                PROTOCOL,
                Framing.DEFAULT_MAX_FRAME_SIZE),
            true);
    try {
      BenchService.AsyncIface iface =
          AsyncClients.asyncIface(
              BenchService.AsyncIface.class,
              instant,
              BenchService.Client::new,
              PROTOCOL,
              callbacks);
      List<Callback<Long>> all = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        Callback<Long> cb = new Callback<>();
        iface.fired(cb);
        all.add(cb);
        Callback<Void> fire = new Callback<>();
        iface.fire(Payloads.of(1, i), fire);
        all.add(null);
        await(fire.future);
        assertThat(fire.thread.get()).as("fire %d", i).isEqualTo(CALLBACK_THREAD);
      }
      for (Callback<Long> cb : all) {
        if (cb != null) {
          await(cb.future);
          assertThat(cb.thread.get()).isEqualTo(CALLBACK_THREAD);
        }
      }
    } finally {
      instant.close();
    }
  }

  @Test
  void proxyReportsApplicationAndChannelFailuresToTheCallback() {
    BenchService.AsyncIface iface = proxy();
    Callback<Void> internal = new Callback<>();
    try {
      iface.fail(FaultInjectingHandler.THROW_ERROR, "assertion", internal);
    } catch (TException e) {
      throw new AssertionError(e);
    }
    assertThat(failure(internal.future))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));

    TTransportException broken =
        new TTransportException(TTransportException.TIMED_OUT, "timed out");
    channel.failWith(broken);
    Callback<TradeReport> sale = new Callback<>();
    Callback<Void> fire = new Callback<>();
    try {
      iface.get_last_sale("X", sale);
      iface.fire(Payloads.of(1, 1), fire);
    } catch (TException e) {
      throw new AssertionError(e);
    }
    assertThat(failure(sale.future)).isSameAs(broken);
    assertThat(failure(fire.future)).isSameAs(broken);
    assertThat(sale.thread.get()).isEqualTo(CALLBACK_THREAD);
  }

  @Test
  void aCallbackThatThrowsDoesNotBreakLaterCalls() throws Exception {
    BenchService.AsyncIface iface = proxy();
    AtomicInteger calls = new AtomicInteger();
    iface.fired(
        new AsyncMethodCallback<>() {
          @Override
          public void onComplete(Long response) {
            calls.incrementAndGet();
            throw new IllegalStateException("callback bug");
          }

          @Override
          public void onError(Exception exception) {
            calls.incrementAndGet();
          }
        });
    Callback<Long> next = new Callback<>();
    iface.fired(next); // the single callback thread is still alive and runs this one
    assertThat(await(next.future)).isZero();
    assertThat(calls).hasValue(1);
  }

  @Test
  void proxyObjectMethodsDoNotCallTheChannel() {
    BenchService.AsyncIface iface = proxy();
    assertThat(iface.toString()).contains(BenchService.AsyncIface.class.getName());
    assertThat(iface).isEqualTo(iface).isNotEqualTo(proxy());
    assertThat(iface.hashCode()).isEqualTo(System.identityHashCode(iface));
    assertThat(channel.callsInFlight()).isZero();
  }

  /** A generated-looking client of another service: no send_echo and friends. */
  static final class OtherClient extends TServiceClient {
    OtherClient(TProtocol in, TProtocol out) {
      super(in, out);
    }

    public void send_ping() {}

    public void recv_ping() {}
  }

  @Test
  void proxyOverAMismatchedClientFailsAtCreation() {
    assertThatThrownBy(
            () ->
                AsyncClients.asyncIface(
                    BenchService.AsyncIface.class, channel, OtherClient::new, PROTOCOL, callbacks))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no send_")
        .hasMessageContaining(OtherClient.class.getName());
    assertThat(channel.callsInFlight()).isZero();
  }

  interface NotAnAsyncIface {
    void echo(ByteBuffer payload);
  }

  @Test
  void proxyRejectsClassesAndMethodsWithoutCallback() {
    assertThatThrownBy(
            () ->
                AsyncClients.asyncIface(
                    String.class, channel, BenchService.Client::new, PROTOCOL, callbacks))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected: an interface");
    assertThatThrownBy(
            () ->
                AsyncClients.asyncIface(
                    NotAnAsyncIface.class, channel, BenchService.Client::new, PROTOCOL, callbacks))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("AsyncMethodCallback");
  }

  /** The suite's channel client kind: blocking calls over the proxy, exceptions rethrown as-is. */
  @Test
  void clientKindsChannelAdapterBlocksAndRethrows() throws Exception {
    io.thriftnio.testkit.conformance.ClientKind kind =
        io.thriftnio.testkit.conformance.ClientKinds.channel("in-memory", address -> channel);
    assertThat(kind.name()).isEqualTo("in-memory");
    try (io.thriftnio.testkit.conformance.BenchConnection connection =
        kind.connect(new java.net.InetSocketAddress("127.0.0.1", 1), PROTOCOL)) {
      BenchService.Iface c = connection.iface();
      assertThat(Payloads.check(c.echo(Payloads.of(100, 4)), 100, 4)).isTrue();
      assertThat(c.get_last_sale("S").getSymbol()).isEqualTo("S");
      assertThat(c.db_work(2)).containsExactly(BenchHandler.row(0), BenchHandler.row(1));
      assertThat(c.get_nested(2)).isEqualTo(BenchHandler.nested(2));
      c.sleep(1);
      c.fire(Payloads.of(3, 3));
      assertThat(c.fired()).isEqualTo(1L);
      assertThatThrownBy(() -> c.fail(404, "missing")).isEqualTo(new BenchError(404, "missing"));
      assertThatThrownBy(() -> c.fail(FaultInjectingHandler.THROW_STACK_OVERFLOW, "deep"))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
    }
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void callerRequiresItsCollaborators() {
    assertThatThrownBy(() -> AsyncCaller.of(null, BenchService.Client::new, PROTOCOL, callbacks))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("channel");
    assertThatThrownBy(() -> AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("executor");
  }
}
