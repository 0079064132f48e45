package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The observable contract of the IO strategies: with 10 clients calling a handler that sleeps 100
 * ms, {@link IoStrategy#WORKER} with 10 worker threads serves about 100 calls/s while {@link
 * IoStrategy#SAME_THREAD} on one IO thread serves about 10. The test asserts the ratio with a wide
 * margin (at least 5x, where 10x is expected); absolute rates belong to the bench.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class StrategyContractSuite {

  /** Clients calling at once. */
  protected static final int CLIENTS = 10;

  /** Handler time per call. */
  protected static final int SLEEP_MILLIS = 100;

  private static final Duration WINDOW = Duration.ofSeconds(2);

  /** A fresh builder of the server under test, with the transport's defaults. */
  protected abstract ServerBuilder<?> newServerBuilder();

  /**
   * Measures calls/s of {@code sleep(100)} from 10 stock clients during a two-second window.
   *
   * @param builder a builder already set to the strategy and thread counts under test
   * @return completed calls per second
   */
  protected double sleepCallsPerSecond(ServerBuilder<?> builder) throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    try (ThriftServer server =
        builder
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocol(protocol)
            .drainTimeout(Duration.ofSeconds(5))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start()) {
      List<BenchConnection> connections = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        connections.add(ClientKinds.stockSocket().connect(server.localAddress(), protocol));
      }
      AtomicInteger completed = new AtomicInteger();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch go = new CountDownLatch(1);
      long end = 0;
      List<Thread> threads = new ArrayList<>();
      long deadline = System.nanoTime() + WINDOW.toNanos();
      for (BenchConnection c : connections) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    go.await();
                    while (System.nanoTime() < deadline) {
                      c.iface().sleep(SLEEP_MILLIS);
                      if (System.nanoTime() <= deadline) {
                        completed.incrementAndGet();
                      }
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "strategy-contract-client");
        threads.add(t);
        t.start();
      }
      long start = System.nanoTime();
      go.countDown();
      for (Thread t : threads) {
        t.join(30_000);
      }
      end = Math.min(System.nanoTime(), deadline);
      for (BenchConnection c : connections) {
        c.close();
      }
      assertThat(failure.get()).as("client failure").isNull();
      return completed.get() / ((end - start) / 1e9);
    }
  }

  @Test
  void workerServesBlockingHandlersAtLeastFiveTimesFasterThanSameThread() throws Exception {
    double sameThread =
        sleepCallsPerSecond(newServerBuilder().ioStrategy(IoStrategy.SAME_THREAD).ioThreads(1));
    double worker =
        sleepCallsPerSecond(
            newServerBuilder().ioStrategy(IoStrategy.WORKER).ioThreads(1).workerThreads(CLIENTS));
    assertThat(sameThread).as("SAME_THREAD calls/s").isGreaterThan(0);
    assertThat(worker / sameThread)
        .as("WORKER %.1f calls/s vs SAME_THREAD %.1f calls/s", worker, sameThread)
        .isGreaterThanOrEqualTo(5.0);
  }
}
