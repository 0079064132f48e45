package io.thriftnio.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.async.AsyncMethodCallback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class BenchHandlerTest {

  private final BenchHandler handler = new BenchHandler();

  @Test
  void echoReturnsItsPayload() {
    ByteBuffer payload = Payloads.of(300, 1);
    assertThat(handler.echo(payload)).isEqualTo(Payloads.of(300, 1));
    assertThat(handler.echo(ByteBuffer.allocate(0)).remaining()).isZero();
  }

  @Test
  void getLastSaleReturnsTheFixedReport() {
    assertThat(handler.get_last_sale("IBM")).isEqualTo(new TradeReport("IBM", 25.50, 100, 1));
  }

  @Test
  void dbWorkRowsFollowTheDocumentedFormula() throws Exception {
    List<TestInfo> rows = handler.db_work(3);
    assertThat(rows).hasSize(3);
    TestInfo r1 = rows.get(1);
    assertThat(r1.getId()).isEqualTo(1);
    assertThat(r1.getName()).isEqualTo("Some_Person_1");
    assertThat(r1.getDob()).isEqualTo("1980-01-01");
    assertThat(r1.getDbl()).isEqualTo(1.5);
    assertThat(r1.isVoter()).isFalse();
    assertThat(r1.getAddr1()).isEqualTo("Addr1_1");
    assertThat(r1.getAddr2()).isEqualTo("Addr2_1");
    assertThat(r1.getAddr_city()).isEqualTo("City_1");
    assertThat(r1.getAddr_state()).isEqualTo("ST");
    assertThat(r1.getAddr_zip()).isEqualTo("00001");
    assertThat(rows.get(0).isVoter()).isTrue();
    assertThat(rows.get(2).getDbl()).isEqualTo(3.0);
    assertThat(rows.get(2).getAddr_zip()).isEqualTo("00002");
    assertThat(rows.get(2)).isEqualTo(BenchHandler.row(2));

    assertThat(handler.db_work(0)).isEmpty();
    List<TestInfo> max = handler.db_work(BenchHandler.MAX_COUNT);
    assertThat(max).hasSize(100_000);
    assertThat(max.get(99_999).getName()).isEqualTo("Some_Person_99999");
  }

  @Test
  void getNestedReturnsAChainOfDepthStructs() throws Exception {
    Nested n = handler.get_nested(4);
    StringBuilder ids = new StringBuilder();
    int count = 0;
    for (Nested i = n; i != null; i = i.getOther()) {
      ids.append(i.getId());
      count++;
    }
    assertThat(count).isEqualTo(4);
    assertThat(ids).hasToString("0123");
    assertThat(handler.get_nested(1)).isEqualTo(new Nested("0"));
    assertThat(handler.get_nested(1).isSetOther()).isFalse();
    assertThat(handler.get_nested(0)).isNull();
    assertThat(handler.get_nested(BenchHandler.MAX_DEPTH)).isEqualTo(BenchHandler.nested(60));
  }

  @Test
  void badArgumentsThrowBenchError400WithAClearMessage() {
    assertBadArgument(() -> handler.db_work(-1), "count: -1 (expected: 0..100000)");
    assertBadArgument(() -> handler.db_work(100_001), "count: 100001 (expected: 0..100000)");
    assertBadArgument(() -> handler.get_nested(-1), "depth: -1 (expected: 0..60)");
    assertBadArgument(() -> handler.get_nested(61), "depth: 61 (expected: 0..60)");
    assertBadArgument(() -> handler.sleep(-1), "millis: -1 (expected: >= 0)");
  }

  @FunctionalInterface
  interface Call {
    void run() throws Exception;
  }

  private static void assertBadArgument(Call call, String message) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            BenchError.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(400).isEqualTo(BenchHandler.BAD_ARGUMENT);
              assertThat(e.getMessage()).isEqualTo(message);
            });
  }

  @Test
  void sleepSleepsAndKeepsTheInterruptFlag() throws Exception {
    long start = System.nanoTime();
    handler.sleep(50);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    handler.sleep(0);

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> handler.sleep(10_000))
          .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(499));
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void failThrowsTheGivenBenchError() {
    assertThatThrownBy(() -> handler.fail(42, "as asked"))
        .isInstanceOfSatisfying(
            BenchError.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(42);
              assertThat(e.getMessage()).isEqualTo("as asked");
            });
  }

  @Test
  void fireCountsCallsAndBytesAndFiredReportsCalls() {
    assertThat(handler.fired()).isZero();
    handler.fire(Payloads.of(300, 1));
    handler.fire(ByteBuffer.allocate(0));
    handler.fire(null);
    assertThat(handler.fired()).isEqualTo(3);
    assertThat(handler.firedBytes()).isEqualTo(300);
  }

  @Test
  void faultInjectingHandlerThrowsUndeclaredThrowables() {
    FaultInjectingHandler faulty = new FaultInjectingHandler();
    assertThatThrownBy(() -> faulty.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "m"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("m");
    assertThatThrownBy(() -> faulty.fail(FaultInjectingHandler.THROW_ERROR, "m"))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> faulty.fail(FaultInjectingHandler.THROW_STACK_OVERFLOW, "m"))
        .isInstanceOf(StackOverflowError.class);
    assertThatThrownBy(() -> faulty.fail(7, "m")).isInstanceOf(BenchError.class);
  }

  // ---- AsyncBenchHandler ----

  /** Collects one callback outcome and the thread it arrived on. */
  static final class Outcome<T> implements AsyncMethodCallback<T> {
    final CompletableFuture<T> future = new CompletableFuture<>();
    volatile Thread thread;

    @Override
    public void onComplete(T response) {
      thread = Thread.currentThread();
      future.complete(response);
    }

    @Override
    public void onError(Exception exception) {
      thread = Thread.currentThread();
      future.completeExceptionally(exception);
    }

    T get() throws Exception {
      return future.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void asyncHandlerHasTheSameSemanticsOnTheCallingThread() throws Exception {
    BenchHandler shared = new BenchHandler();
    AsyncBenchHandler async = new AsyncBenchHandler(shared);

    Outcome<ByteBuffer> echo = new Outcome<>();
    async.echo(Payloads.of(3, 9), echo);
    assertThat(echo.future).isDone();
    assertThat(echo.thread).isSameAs(Thread.currentThread());
    assertThat(Payloads.check(echo.get(), 3, 9)).isTrue();

    Outcome<TradeReport> sale = new Outcome<>();
    async.get_last_sale("X", sale);
    assertThat(sale.get()).isEqualTo(new TradeReport("X", 25.50, 100, 1));

    Outcome<List<TestInfo>> rows = new Outcome<>();
    async.db_work(5, rows);
    assertThat(rows.get())
        .containsExactly(
            BenchHandler.row(0),
            BenchHandler.row(1),
            BenchHandler.row(2),
            BenchHandler.row(3),
            BenchHandler.row(4));

    Outcome<Nested> nested = new Outcome<>();
    async.get_nested(3, nested);
    assertThat(nested.get()).isEqualTo(BenchHandler.nested(3));

    Outcome<Void> fire = new Outcome<>();
    async.fire(Payloads.of(10, 1), fire);
    assertThat(fire.get()).isNull();
    Outcome<Long> fired = new Outcome<>();
    async.fired(fired);
    assertThat(fired.get()).isEqualTo(1L);
    assertThat(shared.fired()).isEqualTo(1);
    assertThat(shared.firedBytes()).isEqualTo(10);
  }

  @Test
  void asyncHandlerReportsErrorsThroughTheCallback() {
    AsyncBenchHandler async = new AsyncBenchHandler();
    Outcome<Void> fail = new Outcome<>();
    async.fail(3, "three", fail);
    assertThatThrownBy(fail::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(3));

    Outcome<List<TestInfo>> rows = new Outcome<>();
    async.db_work(-1, rows);
    assertThatThrownBy(rows::get)
        .cause()
        .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(400));

    Outcome<Nested> nested = new Outcome<>();
    async.get_nested(61, nested);
    assertThatThrownBy(nested::get).cause().hasMessage("depth: 61 (expected: 0..60)");

    Outcome<Void> sleep = new Outcome<>();
    async.sleep(-5, sleep);
    assertThat(sleep.future).isCompletedExceptionally();
    assertThatThrownBy(sleep::get).cause().hasMessage("millis: -5 (expected: >= 0)");
  }

  @Test
  void asyncSleepCompletesLaterWithoutBlockingTheCaller() throws Exception {
    AsyncBenchHandler async = new AsyncBenchHandler();
    Outcome<Void> sleep = new Outcome<>();
    long start = System.nanoTime();
    async.sleep(500, sleep);
    // Returned without completing: the caller was not held for the sleep.
    assertThat(sleep.future).isNotDone();

    assertThat(sleep.get()).isNull();
    assertThat(System.nanoTime() - start)
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
    assertThat(sleep.thread).isNotSameAs(Thread.currentThread());
    assertThat(sleep.thread.getName()).isEqualTo("testkit-async-bench-timer");
  }
}
