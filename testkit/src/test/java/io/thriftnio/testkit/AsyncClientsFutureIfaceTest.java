package io.thriftnio.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link AsyncClients#futureIface} and {@link AsyncCaller#callVoid} over an in-memory channel
 * served by the generated processor: futures of every kind of method, completed on the caller's
 * executor.
 */
@Timeout(30)
class AsyncClientsFutureIfaceTest {

  private static final String EXECUTOR_THREAD = "future-callbacks";
  private static final TProtocolFactory PROTOCOL = new TCompactProtocol.Factory();

  private final FaultInjectingHandler handler = new FaultInjectingHandler();
  private ExecutorService executor;
  private InMemoryChannel channel;
  private AsyncCaller<BenchService.Client> caller;

  @BeforeEach
  void setUp() {
    executor = Executors.newSingleThreadExecutor(r -> new Thread(r, EXECUTOR_THREAD));
    channel =
        new InMemoryChannel(
            ProcessorInvoker.of(
                new BenchService.Processor<>(handler),
                PROTOCOL,
                PROTOCOL,
                Framing.DEFAULT_MAX_FRAME_SIZE));
    caller = AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, executor);
  }

  @AfterEach
  void tearDown() {
    channel.close();
    executor.shutdownNow();
  }

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

  static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the executor is shutting down: the test is over
    }
  }

  @Test
  void everyKindOfMethodCompletesOnTheExecutor() throws Exception {
    BenchService.FutureIface bench = caller.futureIface(BenchService.FutureIface.class);
    AtomicReference<String> thread = new AtomicReference<>();
    // The executor held until the stage below is attached: it then runs where the future
    // completes, not on this thread (the in-memory channel replies at once).
    CountDownLatch held = new CountDownLatch(1);
    executor.execute(() -> awaitQuietly(held));
    CompletableFuture<TradeReport> sale =
        bench
            .get_last_sale("IBM")
            .whenComplete((r, e) -> thread.set(Thread.currentThread().getName()));
    held.countDown();
    assertThat(sale.get(10, TimeUnit.SECONDS).getSymbol()).isEqualTo("IBM");
    assertThat(thread.get()).isEqualTo(EXECUTOR_THREAD);

    assertThat(bench.sleep(0).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(bench.fire(ByteBuffer.allocate(3)).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(bench.fired().get(10, TimeUnit.SECONDS)).isEqualTo(1L);
    assertThat(failure(bench.fail(4, "declared")))
        .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(4));
    assertThat(failure(bench.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x")))
        .isInstanceOf(TApplicationException.class);

    assertThat(bench.toString()).contains(BenchService.FutureIface.class.getName());
    assertThat(bench).isEqualTo(bench);
    assertThat(channel.callsInFlight()).isZero();
  }

  @Test
  void callVoidTakesAVoidReceive() throws Exception {
    assertThat(
            caller
                .callVoid(c -> c.send_sleep(0), BenchService.Client::recv_sleep)
                .get(10, TimeUnit.SECONDS))
        .isNull();
    assertThat(failure(caller.callVoid(c -> c.send_fail(3, "no"), BenchService.Client::recv_fail)))
        .isInstanceOf(BenchError.class);
  }

  @Test
  void aClientOfAnotherServiceIsRefusedAtCreationNamingTheMethod() {
    AsyncCaller<AsyncClientsTest.OtherClient> other =
        AsyncCaller.of(channel, AsyncClientsTest.OtherClient::new, PROTOCOL, executor);
    assertThatThrownBy(() -> other.futureIface(BenchService.FutureIface.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("futureIface: io.thriftnio.testkit.gen.BenchService.FutureIface.")
        .hasMessageContaining(": no send_")
        .hasMessageContaining(AsyncClientsTest.OtherClient.class.getName());
    assertThat(channel.callsInFlight()).isZero();
  }
}
