package io.thriftnio.it.bench;

import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.thrift.TException;

/**
 * The soak's call mix over every method of {@code BenchService}: each call is checked, and {@code
 * fail} must come back as the declared {@code BenchError} with the code it was given (which the
 * pools treat as a healthy connection). Weights are percent. {@link #SLOW}, a {@code sleep} past
 * the call timeout, is outside the weights: {@code soak --slow-share} picks it for that share of
 * the calls before the mix is consulted ({@link #pick(SplittableRandom, double)}).
 */
enum SoakMix {
  ECHO_SMALL(33),
  ECHO_LARGE(2),
  LAST_SALE(13),
  DB_WORK(12),
  NESTED(12),
  SLEEP(10),
  FIRE(8),
  FAIL(10),
  /** {@code sleep(Inputs.slowMillis)}, past the call timeout: expected to time out. */
  SLOW(0);

  /** The code {@code fail} is asked to throw; anything else is a wrong reply. */
  static final int FAIL_CODE = 4711;

  static final int DB_ROWS = 20;
  static final int NESTED_DEPTH = 12;
  static final int SLEEP_MILLIS = 10;

  private static final SoakMix[] BY_PERCENT = new SoakMix[100];

  static {
    int i = 0;
    for (SoakMix m : values()) {
      for (int w = 0; w < m.weight; w++) {
        BY_PERCENT[i++] = m;
      }
    }
    if (i != 100) {
      throw new AssertionError("SoakMix weights add up to " + i + " (expected: 100)");
    }
  }

  private final int weight;

  SoakMix(int weight) {
    this.weight = weight;
  }

  /**
   * The most calls per second a {@code same-thread} server can serve with this mix: {@code sleep}
   * holds an IO thread for {@link #SLEEP_MILLIS}, so {@code ioThreads} of them serve at most {@code
   * ioThreads * 1000 / (share of sleep * SLEEP_MILLIS)} calls/s, whatever else the mix costs.
   */
  static double sameThreadCeiling(int ioThreads) {
    return sameThreadCeiling(ioThreads, 0, 0);
  }

  /**
   * {@link #sameThreadCeiling(int)} with {@code slowPercent} percent of the calls {@link #SLOW}
   * ones, each holding its thread {@code slowMillis}.
   */
  static double sameThreadCeiling(int ioThreads, double slowPercent, int slowMillis) {
    double slow = slowPercent / 100;
    double meanMillis = (1 - slow) * SLEEP.weight / 100.0 * SLEEP_MILLIS + slow * slowMillis;
    return ioThreads * 1000.0 / meanMillis;
  }

  static SoakMix pick(SplittableRandom random) {
    return BY_PERCENT[random.nextInt(100)];
  }

  /**
   * {@link #SLOW} for {@code slowPercent} percent of the calls, else a call of the mix. Without
   * slow calls it draws exactly what {@link #pick(SplittableRandom)} draws, so a seed gives the
   * same calls as before slow calls existed.
   */
  static SoakMix pick(SplittableRandom random, double slowPercent) {
    if (slowPercent > 0 && random.nextDouble() * 100 < slowPercent) {
      return SLOW;
    }
    return pick(random);
  }

  /**
   * What the calls take, prepared once (calls only duplicate the payloads).
   *
   * @param slowPercent the share of {@link #SLOW} calls, in percent; 0 for none
   * @param slowMillis how long a {@link #SLOW} call sleeps
   */
  record Inputs(
      ByteBuffer small, ByteBuffer large, int largeSize, double slowPercent, int slowMillis) {
    static Inputs of(int largeSize, double slowPercent, int slowMillis) {
      return new Inputs(
          Payloads.of(Payloads.SMALL, Workload.SEED),
          Payloads.of(largeSize, Workload.SEED),
          largeSize,
          slowPercent,
          slowMillis);
    }
  }

  /** One blocking call through the sync pool; true if the reply checks out. */
  boolean call(ThriftClientPool<BenchService.Client> pool, Inputs p) throws TException {
    switch (this) {
      case ECHO_SMALL:
        return Payloads.check(
            pool.call(c -> c.echo(p.small().duplicate())), Payloads.SMALL, Workload.SEED);
      case ECHO_LARGE:
        return Payloads.check(
            pool.call(c -> c.echo(p.large().duplicate())), p.largeSize(), Workload.SEED);
      case LAST_SALE:
        return "SOAK".equals(pool.call(c -> c.get_last_sale("SOAK")).getSymbol());
      case DB_WORK:
        return checkRows(pool.call(c -> c.db_work(DB_ROWS)));
      case NESTED:
        return depth(pool.call(c -> c.get_nested(NESTED_DEPTH))) == NESTED_DEPTH;
      case SLEEP:
        pool.call(
            c -> {
              c.sleep(SLEEP_MILLIS);
              return null;
            });
        return true;
      case SLOW:
        pool.call(
            c -> {
              c.sleep(p.slowMillis());
              return null;
            });
        return true;
      case FIRE:
        pool.call(
            c -> {
              c.fire(p.small().duplicate());
              return null;
            });
        return true;
      case FAIL:
        try {
          pool.call(
              c -> {
                c.fail(FAIL_CODE, "soak");
                return null;
              });
          return false;
        } catch (BenchError e) {
          return e.getCode() == FAIL_CODE;
        }
      default:
        throw new AssertionError(this);
    }
  }

  /** One call through the async pool; completes with whether the reply checks out. */
  CompletableFuture<Boolean> call(ThriftChannelPool<BenchService.Client> pool, Inputs p) {
    switch (this) {
      case ECHO_SMALL:
        return pool.call(c -> c.send_echo(p.small().duplicate()), BenchService.Client::recv_echo)
            .thenApply(r -> Payloads.check(r, Payloads.SMALL, Workload.SEED));
      case ECHO_LARGE:
        return pool.call(c -> c.send_echo(p.large().duplicate()), BenchService.Client::recv_echo)
            .thenApply(r -> Payloads.check(r, p.largeSize(), Workload.SEED));
      case LAST_SALE:
        return pool.call(c -> c.send_get_last_sale("SOAK"), BenchService.Client::recv_get_last_sale)
            .thenApply(r -> "SOAK".equals(r.getSymbol()));
      case DB_WORK:
        return pool.call(c -> c.send_db_work(DB_ROWS), BenchService.Client::recv_db_work)
            .thenApply(SoakMix::checkRows);
      case NESTED:
        return pool.call(c -> c.send_get_nested(NESTED_DEPTH), BenchService.Client::recv_get_nested)
            .thenApply(r -> depth(r) == NESTED_DEPTH);
      case SLEEP:
        return pool.call(
            c -> c.send_sleep(SLEEP_MILLIS),
            c -> {
              c.recv_sleep();
              return true;
            });
      case SLOW:
        return pool.call(
            c -> c.send_sleep(p.slowMillis()),
            c -> {
              c.recv_sleep();
              return true;
            });
      case FIRE:
        return pool.callOneway(c -> c.send_fire(p.small().duplicate())).thenApply(v -> true);
      case FAIL:
        return pool.call(
                c -> c.send_fail(FAIL_CODE, "soak"),
                c -> {
                  c.recv_fail();
                  return false;
                })
            .handle(
                (ok, e) -> {
                  Throwable cause = AsyncUnwrap.cause(e);
                  if (cause instanceof BenchError be) {
                    return be.getCode() == FAIL_CODE;
                  }
                  if (cause != null) {
                    throw new CompletionException(cause);
                  }
                  return ok;
                });
      default:
        throw new AssertionError(this);
    }
  }

  private static boolean checkRows(List<TestInfo> rows) {
    return rows.size() == DB_ROWS && rows.get(DB_ROWS - 1).equals(BenchHandler.row(DB_ROWS - 1));
  }

  private static int depth(Nested n) {
    int d = 0;
    for (Nested x = n; x != null; x = x.getOther()) {
      d++;
    }
    return d;
  }
}
