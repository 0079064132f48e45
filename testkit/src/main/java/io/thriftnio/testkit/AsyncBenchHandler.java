package io.thriftnio.testkit;

import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.async.AsyncMethodCallback;

/**
 * The reference handler's semantics as an {@code AsyncIface}. Every method but {@code sleep}
 * completes on the calling thread; {@code sleep} completes later from a timer thread, without
 * holding the caller, so servers serving it must cope with completions on foreign threads.
 */
public class AsyncBenchHandler implements BenchService.AsyncIface {

  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "testkit-async-bench-timer");
            t.setDaemon(true);
            return t;
          });

  private final BenchHandler delegate;

  /** A handler over a fresh {@link BenchHandler}. */
  public AsyncBenchHandler() {
    this(new BenchHandler());
  }

  /** A handler over {@code delegate}, to share its {@code fired} counters. */
  public AsyncBenchHandler(BenchHandler delegate) {
    this.delegate = delegate;
  }

  @FunctionalInterface
  private interface Body<T> {
    T run() throws Exception;
  }

  private static <T> void complete(AsyncMethodCallback<T> callback, Body<T> body) {
    T result;
    try {
      result = body.run();
    } catch (Exception e) {
      callback.onError(e);
      return;
    }
    callback.onComplete(result);
  }

  @Override
  public void echo(ByteBuffer payload, AsyncMethodCallback<ByteBuffer> cb) {
    complete(cb, () -> delegate.echo(payload));
  }

  @Override
  public void get_last_sale(String symbol, AsyncMethodCallback<TradeReport> cb) {
    complete(cb, () -> delegate.get_last_sale(symbol));
  }

  @Override
  public void db_work(int count, AsyncMethodCallback<List<TestInfo>> cb) {
    complete(cb, () -> delegate.db_work(count));
  }

  @Override
  public void get_nested(int depth, AsyncMethodCallback<Nested> cb) {
    complete(cb, () -> delegate.get_nested(depth));
  }

  @Override
  public void sleep(int millis, AsyncMethodCallback<Void> cb) {
    if (millis < 0) {
      cb.onError(BenchHandler.badArgument("millis", millis, ">= 0"));
      return;
    }
    TIMER.schedule(() -> cb.onComplete(null), millis, TimeUnit.MILLISECONDS);
  }

  @Override
  public void fail(int code, String message, AsyncMethodCallback<Void> cb) {
    complete(
        cb,
        () -> {
          delegate.fail(code, message);
          return null;
        });
  }

  @Override
  public void fire(ByteBuffer payload, AsyncMethodCallback<Void> cb) {
    complete(
        cb,
        () -> {
          delegate.fire(payload);
          return null;
        });
  }

  @Override
  public void fired(AsyncMethodCallback<Long> cb) {
    complete(cb, delegate::fired);
  }
}
