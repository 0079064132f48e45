package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One slow call fails alone and ejects nobody: two WORKER servers, a {@link ThriftChannelPool} over
 * both, callers echoing in a loop and one caller making calls that sleep past the request timeout,
 * one at a time: the next is sent once the server has answered the last. (Two slow calls owed at
 * once on a pool's only two connections leave no connection free of a late reply, and the pool then
 * rightly connects rather than queue calls behind one: {@code CollateralFailuresTest} covers that.)
 * The bench's soak runs the same mix at scale; this is the small, fast version.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowCallScenarioTest {
  // Long enough that an echo call never times out on its own on a loaded CI machine (one did at
  // 500 ms, and its connection, owing that late reply, made the pool open a third one).
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);
  private static final int SLOW_MILLIS = 2000;
  private static final int SLOW_CALLS = 2;
  private static final int CALLERS = 16;

  @Test
  void aSlowCallFailsAloneEjectsNobodyAndOpensNoConnection() throws Exception {
    run(WireKind.FRAMED);
  }

  /**
   * On THeader the channel matches replies by the header's sequence id and the WORKER server
   * answers each call when it is done: no echo call waits behind the slow one, so none times out
   * behind it.
   */
  @Test
  void onTheaderNoEchoCallTimesOutBehindTheSlowOne() throws Exception {
    Outcomes echoes = run(WireKind.HEADER);
    // An echo sent after the slow call on its connection would wait 2 s for it in request order
    // (and time out at 1 s): none may time out at all, behind or alone.
    assertThat(echoes.timedOutBehind.sum() + echoes.timedOut.sum())
        .as("echo calls timed out with a slow call on their connection")
        .isZero();
  }

  private Outcomes run(WireKind wire) throws Exception {
    List<ThriftServer> servers = new ArrayList<>();
    SleepCounting handler = new SleepCounting();
    try (NettyClientIo resources = NettyClientIo.create(1)) {
      for (int i = 0; i < 2; i++) {
        servers.add(
            NettyThriftServer.builder()
                .processor(new BenchService.Processor<>(handler))
                .ioStrategy(IoStrategy.WORKER)
                .ioThreads(1)
                .workerThreads(8)
                .wireKinds(WireKind.FRAMED, WireKind.HEADER)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .start());
      }
      ClientOptions options =
          ClientOptions.builder().callTimeout(REQUEST_TIMEOUT).wireKind(wire).build();
      try (ThriftChannelPool<BenchService.Client> pool =
          ThriftChannelPool.builder(BenchService.Client::new)
              .io(resources)
              .options(options)
              .endpoints(servers.get(0).localAddress(), servers.get(1).localAddress())
              .build()) {
        Outcomes echoes = new Outcomes();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < CALLERS; t++) {
          int id = t;
          Thread caller =
              new Thread(
                  () -> {
                    ByteBuffer payload = Payloads.of(300, id);
                    while (!stop.get()) {
                      echoes.record(
                          () ->
                              pool.call(
                                      c -> c.send_echo(payload.duplicate()),
                                      BenchService.Client::recv_echo)
                                  .get(10, TimeUnit.SECONDS));
                    }
                  },
                  "echo-caller-" + t);
          caller.start();
          callers.add(caller);
        }
        echoes.awaitOk(2_000); // warmed up: every connection the load needs is open
        long createdBefore = pool.stats().created();

        Outcomes slow = new Outcomes();
        for (int i = 0; i < SLOW_CALLS; i++) {
          slow.record(
              () ->
                  pool.<Void>call(
                          c -> c.send_sleep(SLOW_MILLIS),
                          c -> {
                            c.recv_sleep();
                            return null;
                          })
                      .get(10, TimeUnit.SECONDS));
          // Its late reply is on its way (it arrives within the next call's timeout).
          handler.awaitSleepsDone(i + 1);
        }
        // Let the slow calls' late replies arrive and the echoes run past them.
        long okAfterSlow = echoes.ok.sum();
        echoes.awaitOk(okAfterSlow + 2_000);
        stop.set(true);
        for (Thread caller : callers) {
          caller.join(10_000);
        }

        assertThat(slow.timedOut.sum()).as("every slow call timed out").isEqualTo(SLOW_CALLS);
        assertThat(slow.ok.sum()).isZero();
        assertThat(echoes.others)
            .as("no echo call failed because another call timed out: %s", echoes.others)
            .isEmpty();
        assertThat(echoes.ok.sum()).isGreaterThan(4_000);
        assertThat(pool.stats().ejections()).as("no healthy server ejected").isZero();
        assertThat(pool.stats().created())
            .as(
                "no connection opened because of a slow call (echo calls timed out on their own: %s)",
                echoes.timedOut.sum())
            .isEqualTo(createdBefore);
        assertThat(pool.stats().invalidated()).isZero();
        // Head-of-line victims (queued behind a slow call on its connection) are inherent to
        // in-order replies: counted, reported, never more than a connection's calls per slow call.
        assertThat(echoes.timedOutBehind.sum())
            .isLessThanOrEqualTo(
                (long) SLOW_CALLS * ThriftChannelPool.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION);
        return echoes;
      }
    } finally {
      for (ThriftServer server : servers) {
        server.close();
      }
    }
  }

  /** Counts the sleep calls the servers have answered. */
  private static final class SleepCounting extends BenchHandler {
    private final AtomicInteger sleepsDone = new AtomicInteger();

    @Override
    public void sleep(int millis) throws BenchError {
      try {
        super.sleep(millis);
      } finally {
        sleepsDone.incrementAndGet();
      }
    }

    void awaitSleepsDone(int n) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (sleepsDone.get() < n) {
        assertThat(System.nanoTime() - deadline)
            .as("%s sleep calls answered in 30 s", n)
            .isNegative();
        Thread.sleep(10); // polling the counter
      }
    }
  }

  /** What a run of calls ended with. */
  private static final class Outcomes {
    final LongAdder ok = new LongAdder();
    final LongAdder timedOut = new LongAdder(); // by its own timer, the server slow to answer it
    final LongAdder timedOutBehind = new LongAdder(); // queued behind a timed-out call
    final Map<String, Integer> others = new ConcurrentHashMap<>();

    interface Call {
      Object run() throws Exception;
    }

    void record(Call call) {
      try {
        call.run();
        ok.increment();
      } catch (ExecutionException e) {
        Throwable f = Failures.unwrap(e);
        if (f instanceof CallTimeoutException) {
          (((CallTimeoutException) f).behindTimedOutCall() ? timedOutBehind : timedOut).increment();
        } else {
          others.merge(f.toString(), 1, Integer::sum);
        }
      } catch (Exception e) {
        others.merge(e.toString(), 1, Integer::sum);
      }
    }

    /** Waits until {@code n} calls have succeeded. */
    void awaitOk(long n) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (ok.sum() < n) {
        assertThat(System.nanoTime() - deadline).as("%s calls served in 30 s", n).isNegative();
        Thread.sleep(10); // polling the counter
      }
    }
  }
}
