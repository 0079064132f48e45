package io.thriftnio.testkit.fuzz;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference handler for fuzzing: counts the calls that reach it, checks what arrives, and keeps
 * random arguments cheap (a {@code sleep} above 5 ms or a {@code db_work} above 200 rows is refused
 * with a {@code BenchError}, so that one mutated integer cannot stall the run).
 *
 * <p>Generated code types the arguments; what can still go wrong is a value the frame cannot have
 * carried: a binary or string larger than the frame. Those are recorded as {@link #violations()}.
 */
public final class FuzzHandler implements BenchService.Iface {

  private static final int MAX_SLEEP_MILLIS = 5;
  private static final int MAX_ROWS = 200;

  private final BenchHandler delegate = new BenchHandler();
  private final int maxFrameSize;
  private final AtomicLong calls = new AtomicLong();
  private final Queue<String> violations = new ConcurrentLinkedQueue<>();

  /**
   * @param maxFrameSize the server's limit: no argument can be larger
   */
  public FuzzHandler(int maxFrameSize) {
    this.maxFrameSize = maxFrameSize;
  }

  /** Calls that reached the handler. */
  public long calls() {
    return calls.get();
  }

  /** Arguments the handler should never have seen, described. */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  private void arrived(String method, Object... args) {
    calls.incrementAndGet();
    for (Object arg : args) {
      int size =
          arg instanceof ByteBuffer
              ? ((ByteBuffer) arg).remaining()
              : arg instanceof String ? ((String) arg).length() : 0;
      if (size > maxFrameSize) {
        violations.add(method + " got an argument of " + size + " > maxFrameSize " + maxFrameSize);
      }
    }
  }

  @Override
  public ByteBuffer echo(ByteBuffer payload) {
    arrived("echo", payload);
    return payload;
  }

  @Override
  public TradeReport get_last_sale(String symbol) {
    arrived("get_last_sale", symbol);
    return delegate.get_last_sale(symbol);
  }

  @Override
  public List<TestInfo> db_work(int count) throws BenchError {
    arrived("db_work");
    if (count > MAX_ROWS) {
      throw new BenchError(BenchHandler.BAD_ARGUMENT, "fuzzing: count " + count + " > " + MAX_ROWS);
    }
    return delegate.db_work(count);
  }

  @Override
  public Nested get_nested(int depth) throws BenchError {
    arrived("get_nested");
    return delegate.get_nested(depth);
  }

  @Override
  public void sleep(int millis) throws BenchError {
    arrived("sleep");
    if (millis > MAX_SLEEP_MILLIS) {
      throw new BenchError(BenchHandler.BAD_ARGUMENT, "fuzzing: sleep " + millis + " ms");
    }
    delegate.sleep(millis);
  }

  @Override
  public void fail(int code, String message) throws BenchError {
    arrived("fail", message);
    delegate.fail(code, message);
  }

  @Override
  public void fire(ByteBuffer payload) {
    arrived("fire", payload);
    delegate.fire(payload);
  }

  @Override
  public long fired() {
    arrived("fired");
    return delegate.fired();
  }
}
