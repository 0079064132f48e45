package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link IoStrategy#WORKER} with a caller-supplied executor that drops a task (returns from {@code
 * execute} and never runs it): the dropped call is answered as an overload once {@code
 * workerStartTimeout} passes, the replies held behind it leave, and the connection serves on. A
 * {@link ThreadPoolExecutor} with a discard policy is refused at {@code build()}. A transport
 * subclasses it with {@link #newServerBuilder()}.
 */
@Timeout(20)
public abstract class DroppingWorkerSuite {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final Duration START_TIMEOUT = Duration.ofMillis(300);

  private final ExecutorService runs = Executors.newFixedThreadPool(4);
  private ThriftServer server;

  /** A fresh builder of the transport's server, with its defaults. */
  protected abstract ServerBuilder<?> newServerBuilder();

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    runs.shutdownNow();
  }

  /** Drops the first task it is given, after it was handed back by the test; runs the others. */
  private static final class DropsFirst implements java.util.concurrent.Executor {
    final AtomicReference<Runnable> dropped = new AtomicReference<>();
    private final ExecutorService runs;

    DropsFirst(ExecutorService runs) {
      this.runs = runs;
    }

    @Override
    public void execute(Runnable task) {
      if (!dropped.compareAndSet(null, task)) {
        runs.execute(task);
      }
    }
  }

  private ThriftServer start(java.util.concurrent.Executor worker) throws Exception {
    server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocol(BINARY)
            .ioStrategy(IoStrategy.WORKER)
            .workerExecutor(worker)
            .workerStartTimeout(START_TIMEOUT)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    server.start();
    return server;
  }

  private static byte[] echoCall(int seqid) throws TException {
    return RawConnection.frame(
        RawConnection.encodeCall(
            BINARY, "echo", seqid, new BenchService.echo_args(Payloads.of(16, seqid))));
  }

  private static int echoReply(RawConnection raw, int seqid) throws Exception {
    BenchService.echo_result result = new BenchService.echo_result();
    int got = RawConnection.decodeReply(BINARY, raw.readFrame(), result).seqid;
    assertThat(Payloads.check(result.success, 16, seqid)).as("payload of seqid %s", seqid).isTrue();
    return got;
  }

  @Test
  void aCallTheExecutorDropsIsAnsweredAsAnOverloadAndTheRepliesBehindItLeave() throws Exception {
    DropsFirst worker = new DropsFirst(runs);
    start(worker);
    try (RawConnection raw = RawConnection.open(server.localAddress())) {
      ByteArrayOutputStream batch = new ByteArrayOutputStream();
      for (int seq = 1; seq <= 3; seq++) {
        batch.write(echoCall(seq));
      }
      raw.write(batch.toByteArray());

      byte[] first = raw.readFrame();
      assertThatThrownBy(
              () -> RawConnection.decodeReply(BINARY, first, new BenchService.echo_result()))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> {
                assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
                assertThat(e.getMessage())
                    .contains("echo")
                    .contains("not started within " + START_TIMEOUT.toMillis() + " ms");
              });
      assertThat(echoReply(raw, 2)).isEqualTo(2);
      assertThat(echoReply(raw, 3)).isEqualTo(3);
      assertThat(server.stats().overloadedCalls()).isEqualTo(1);

      // The dropped task runs after all, late: it must not answer a second time.
      worker.dropped.get().run();
      raw.write(echoCall(4));
      assertThat(echoReply(raw, 4)).as("the next reply is the next call's").isEqualTo(4);
      assertThat(server.stats().completedCalls()).isEqualTo(3);
    }
  }

  @Test
  void aThreadPoolThatDiscardsIsRefusedAtBuild() {
    assertDiscardingPoolRefused(new ThreadPoolExecutor.DiscardPolicy(), "DiscardPolicy");
    assertDiscardingPoolRefused(
        new ThreadPoolExecutor.DiscardOldestPolicy(), "DiscardOldestPolicy");
  }

  private void assertDiscardingPoolRefused(RejectedExecutionHandler policy, String name) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(1), policy);
    try {
      ServerBuilder<?> builder =
          newServerBuilder()
              .processor(new BenchService.Processor<>(new BenchHandler()))
              .ioStrategy(IoStrategy.WORKER)
              .workerExecutor(pool)
              .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      assertThatThrownBy(builder::build)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("workerExecutor: ")
          .hasMessageContaining(name)
          .hasMessageContaining("(expected: ");
    } finally {
      pool.shutdownNow();
    }
  }
}
