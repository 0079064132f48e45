package io.thriftnio.testkit.conformance;

import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link FaultInjectingHandler} that records every call it receives, as {@code method(summary)}
 * (an {@code echo} of 80 bytes is {@code echo(80 B)}), so a test can assert that the handler saw
 * nothing but the calls it expected. Calls of the suite's good client, {@code
 * get_last_sale("good-N")}, are counted apart. Counts, not a log: a million calls take a few map
 * entries.
 */
final class RecordingHandler extends FaultInjectingHandler {

  /** Prefix of the symbols the good client asks for. */
  static final String GOOD = "good-";

  private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
  private final LongAdder goodCalls = new LongAdder();
  private final AtomicInteger sleepsRunning = new AtomicInteger();
  private final LongAdder sleepsFinished = new LongAdder();

  /** Once set, {@code sleep} calls wait for it instead of sleeping (at most a minute). */
  private volatile CountDownLatch sleepsHeld;

  private void record(String call) {
    calls.computeIfAbsent(call, c -> new LongAdder()).increment();
  }

  /** Every call but the good client's, with how many times it came; sorted by call. */
  Map<String, Long> calls() {
    Map<String, Long> copy = new TreeMap<>();
    calls.forEach((call, n) -> copy.put(call, n.sum()));
    return copy;
  }

  /** Calls of the good client. */
  long goodCalls() {
    return goodCalls.sum();
  }

  /** {@code sleep} calls running now. */
  int sleepsRunning() {
    return sleepsRunning.get();
  }

  /**
   * From now on, {@code sleep} calls wait until {@link #releaseSleeps()} (or a minute) whatever
   * their argument: a test decides when the server's threads come free, not the clock.
   */
  void holdSleeps() {
    sleepsHeld = new CountDownLatch(1);
  }

  /** Lets every held {@code sleep} call return, and those after it. */
  void releaseSleeps() {
    CountDownLatch held = sleepsHeld;
    if (held != null) {
      held.countDown();
    }
  }

  /** {@code sleep} calls that have returned or thrown. */
  long sleepsFinished() {
    return sleepsFinished.sum();
  }

  @Override
  public ByteBuffer echo(ByteBuffer payload) {
    record("echo(" + payload.remaining() + " B)");
    return super.echo(payload);
  }

  @Override
  public TradeReport get_last_sale(String symbol) {
    if (symbol.startsWith(GOOD)) {
      goodCalls.increment();
    } else {
      record("get_last_sale(" + symbol + ")");
    }
    return super.get_last_sale(symbol);
  }

  @Override
  public java.util.List<TestInfo> db_work(int count) throws BenchError {
    record("db_work(" + count + ")");
    return super.db_work(count);
  }

  @Override
  public Nested get_nested(int depth) throws BenchError {
    record("get_nested(" + depth + ")");
    return super.get_nested(depth);
  }

  @Override
  public void sleep(int millis) throws BenchError {
    record("sleep(" + millis + ")");
    sleepsRunning.incrementAndGet();
    try {
      CountDownLatch held = sleepsHeld;
      if (held == null) {
        super.sleep(millis);
      } else if (!held.await(1, TimeUnit.MINUTES)) {
        throw new IllegalStateException("a held sleep was never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while held", e);
    } finally {
      sleepsRunning.decrementAndGet();
      sleepsFinished.increment();
    }
  }

  @Override
  public void fail(int code, String message) throws BenchError {
    record("fail(" + code + ")");
    super.fail(code, message);
  }

  @Override
  public void fire(ByteBuffer payload) {
    record("fire(" + payload.remaining() + " B)");
    super.fire(payload);
  }

  @Override
  public long fired() {
    record("fired()");
    return super.fired();
  }
}
