package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.thrift.TApplicationException;

/** Checks of {@link BenchHandler}'s semantics as a remote caller sees them, for any client. */
final class BenchChecks {

  private static final long ONEWAY_WAIT_MS = 5_000;

  private BenchChecks() {}

  /** Every method, checked against {@link BenchHandler}'s semantics, on one connection. */
  static void checkEveryMethod(BenchService.Iface client) throws Exception {
    for (int size : new int[] {0, Payloads.SMALL, Payloads.MEDIUM, Payloads.LARGE}) {
      long seed = 1000 + size;
      ByteBuffer echoed = client.echo(Payloads.of(size, seed));
      assertThat(Payloads.check(echoed, size, seed)).as("echo of %d bytes", size).isTrue();
    }

    for (String symbol : List.of("IBM", "\u00c4\u00df\u20ac-\uD83D\uDE00")) {
      assertThat(client.get_last_sale(symbol)).isEqualTo(new TradeReport(symbol, 25.50, 100, 1));
    }

    assertThat(client.db_work(0)).isEmpty();
    assertThat(client.db_work(100))
        .containsExactlyElementsOf(IntStream.range(0, 100).mapToObj(BenchHandler::row).toList());

    assertThat(client.get_nested(1)).isEqualTo(new Nested("0"));
    assertThat(client.get_nested(BenchHandler.MAX_DEPTH))
        .isEqualTo(BenchHandler.nested(BenchHandler.MAX_DEPTH));

    long started = System.nanoTime();
    client.sleep(5);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
        .isGreaterThanOrEqualTo(5);

    assertThatThrownBy(() -> client.fail(7, "seven"))
        .isInstanceOfSatisfying(
            BenchError.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(7);
              assertThat(e.getMessage()).isEqualTo("seven");
            });

    String count = "0.." + BenchHandler.MAX_COUNT;
    String depth = "0.." + BenchHandler.MAX_DEPTH;
    checkBadArgument("db_work", () -> client.db_work(-1), "count: -1 (expected: " + count + ")");
    checkBadArgument(
        "db_work",
        () -> client.db_work(BenchHandler.MAX_COUNT + 1),
        "count: " + (BenchHandler.MAX_COUNT + 1) + " (expected: " + count + ")");
    checkBadArgument(
        "get_nested", () -> client.get_nested(-1), "depth: -1 (expected: " + depth + ")");
    checkBadArgument(
        "get_nested",
        () -> client.get_nested(BenchHandler.MAX_DEPTH + 1),
        "depth: " + (BenchHandler.MAX_DEPTH + 1) + " (expected: " + depth + ")");
    checkBadArgument(
        "sleep",
        () -> {
          client.sleep(-1);
          return null;
        },
        "millis: -1 (expected: >= 0)");
    assertThat(client.get_last_sale("after bad arguments").getSymbol())
        .isEqualTo("after bad arguments");

    long before = client.fired();
    for (int i = 0; i < 5; i++) {
      client.fire(Payloads.of(Payloads.SMALL * i, 2000 + i));
    }
    // Oneway is asynchronous: poll, bounded, until the server has run every fire().
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ONEWAY_WAIT_MS);
    long fired = client.fired();
    while (fired < before + 5 && System.nanoTime() < deadline) {
      Thread.sleep(10);
      fired = client.fired();
    }
    assertThat(fired).as("fired() within %d ms of 5 fire()", ONEWAY_WAIT_MS).isEqualTo(before + 5);
    // No response frame came back for the oneways: the next call reads its own.
    assertThat(Payloads.check(client.echo(Payloads.of(Payloads.SMALL, 9)), Payloads.SMALL, 9))
        .isTrue();
  }

  /**
   * A bad argument makes the handler throw {@code BenchError(400)}. It reaches the caller as such
   * only where bench.thrift declares {@code throws (BenchError)} for the method; elsewhere every
   * stock processor, Java's and Python's alike, answers {@code TApplicationException
   * (INTERNAL_ERROR)}.
   */
  private static void checkBadArgument(String method, Callable<?> call, String message) {
    if (declaresBenchError(method)) {
      assertThatThrownBy(call::call)
          .as("%s with a bad argument", method)
          .isInstanceOfSatisfying(
              BenchError.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(BenchHandler.BAD_ARGUMENT);
                assertThat(e.getMessage()).isEqualTo(message);
              });
    } else {
      assertThatThrownBy(call::call)
          .as("%s with a bad argument (BenchError undeclared in bench.thrift)", method)
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
    }
  }

  /** Whether the generated {@code <method>_result} carries a {@code BenchError}. */
  static boolean declaresBenchError(String method) {
    return Arrays.stream(BenchService.class.getDeclaredClasses())
        .filter(c -> c.getSimpleName().equals(method + "_result"))
        .flatMap(c -> Arrays.stream(c.getDeclaredFields()))
        .anyMatch(f -> f.getType() == BenchError.class);
  }
}
