package io.thriftnio.testkit;

import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference {@code BenchService} handler. Every transport, client and benchmark row serves or
 * checks against these semantics:
 *
 * <ul>
 *   <li>{@code echo} returns its payload;
 *   <li>{@code get_last_sale(s)} returns {@code TradeReport(s, 25.50, 100, 1)};
 *   <li>{@code db_work(n)} returns n rows, row i with id=i, name="Some_Person_"+i,
 *       dob="1980-01-01", dbl=i*1.5, voter=(i%2==0), addr1="Addr1_"+i, addr2="Addr2_"+i,
 *       addr_city="City_"+i, addr_state="ST", addr_zip="0000"+i;
 *   <li>{@code get_nested(d)} returns a chain of d structs with ids "0".."d-1";
 *   <li>{@code sleep(ms)} sleeps; {@code fail(code, msg)} throws {@code BenchError(code, msg)};
 *   <li>{@code fire} counts calls and bytes; {@code fired()} returns the count of {@code fire}
 *       calls.
 * </ul>
 *
 * Bad arguments (negative count, depth or millis; count above {@value #MAX_COUNT}; depth above
 * {@value #MAX_DEPTH}) throw {@code BenchError} with code {@value #BAD_ARGUMENT}. Only {@code fail}
 * declares {@code BenchError} in {@code bench.thrift}, so a remote caller of the other methods
 * receives it as {@code TApplicationException(INTERNAL_ERROR)}. Thread-safe.
 */
public class BenchHandler implements BenchService.Iface {

  /** Largest {@code db_work} count accepted. */
  public static final int MAX_COUNT = 100_000;

  /** Largest {@code get_nested} depth accepted. */
  public static final int MAX_DEPTH = 60;

  /** {@code BenchError.code} for a bad argument. */
  public static final int BAD_ARGUMENT = 400;

  private final AtomicLong fired = new AtomicLong();
  private final AtomicLong firedBytes = new AtomicLong();

  @Override
  public ByteBuffer echo(ByteBuffer payload) {
    return payload;
  }

  @Override
  public TradeReport get_last_sale(String symbol) {
    return new TradeReport(symbol, 25.50, 100, 1);
  }

  @Override
  public List<TestInfo> db_work(int count) throws BenchError {
    if (count < 0 || count > MAX_COUNT) {
      throw badArgument("count", count, "0.." + MAX_COUNT);
    }
    List<TestInfo> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      rows.add(row(i));
    }
    return rows;
  }

  /** Row {@code i} of {@code db_work}, for checks. */
  public static TestInfo row(int i) {
    return new TestInfo(
        i,
        "Some_Person_" + i,
        "1980-01-01",
        i * 1.5,
        i % 2 == 0,
        "Addr1_" + i,
        "Addr2_" + i,
        "City_" + i,
        "ST",
        "0000" + i);
  }

  @Override
  public Nested get_nested(int depth) throws BenchError {
    if (depth < 0 || depth > MAX_DEPTH) {
      throw badArgument("depth", depth, "0.." + MAX_DEPTH);
    }
    return nested(depth);
  }

  /** The chain {@code get_nested(depth)} returns; {@code null} for depth 0. */
  public static Nested nested(int depth) {
    Nested head = null;
    for (int i = depth - 1; i >= 0; i--) {
      Nested n = new Nested(Integer.toString(i));
      if (head != null) {
        n.setOther(head);
      }
      head = n;
    }
    return head;
  }

  @Override
  public void sleep(int millis) throws BenchError {
    if (millis < 0) {
      throw badArgument("millis", millis, ">= 0");
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchError(499, "sleep(" + millis + ") interrupted");
    }
  }

  @Override
  public void fail(int code, String message) throws BenchError {
    throw new BenchError(code, message);
  }

  @Override
  public void fire(ByteBuffer payload) {
    firedBytes.addAndGet(payload == null ? 0 : payload.remaining());
    fired.incrementAndGet();
  }

  @Override
  public long fired() {
    return fired.get();
  }

  /** Bytes received by {@code fire} so far. */
  public long firedBytes() {
    return firedBytes.get();
  }

  static BenchError badArgument(String name, int value, String expected) {
    return new BenchError(BAD_ARGUMENT, name + ": " + value + " (expected: " + expected + ")");
  }
}
