package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ServerBuilder.boundComputingCalls} on a transport's {@link IoStrategy#WORKER} server:
 * calls that compute run about one per processor at once, calls that wait run on every worker, and
 * the setting turns it off. Counts the handlers running at once; no timing is asserted. Runs where
 * the server can measure a call (Linux's per-thread scheduler statistics). A transport subclasses
 * it with {@link #newTransportBuilder()}.
 */
@Timeout(60)
public abstract class RunGateSuite {

  private static final byte COMPUTE = 0;
  private static final byte WAIT = 1;
  private static final byte BLOCK = 2;

  /** Client threads: far more than the processors, fewer than the workers. */
  private static final int CALLERS =
      Math.min(60, 4 * Runtime.getRuntime().availableProcessors() + 2);

  private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();

  private final Handler handler = new Handler();
  private ThriftServer server;
  private ExecutorService callers;

  /** A fresh builder of the transport's server, with its defaults. */
  protected abstract ServerBuilder<?> newTransportBuilder();

  /** {@code WORKER}, or {@code LEADER_FOLLOWER} where the transport has it. */
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }

  @BeforeEach
  void measurable() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isReadable(Path.of("/proc/thread-self/schedstat")),
        "the server measures calls with Linux's per-thread scheduler statistics");
    callers = Executors.newFixedThreadPool(CALLERS);
  }

  @AfterEach
  void stop() {
    if (callers != null) {
      callers.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  private void start(UnaryOperator<ServerBuilder<?>> settings) throws Exception {
    server =
        settings
            .apply(
                newTransportBuilder()
                    .processor(new io.thriftnio.testkit.gen.BenchService.Processor<>(handler))
                    .protocol(new TBinaryProtocol.Factory())
                    .ioStrategy(strategy())
                    // calls wait for their turn here: not shed for it (but in the case that
                    // checks the refusal)
                    .queueTimeTarget(Duration.ofMinutes(1))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
            .build()
            .start();
  }

  /**
   * Rounds of computing calls from every caller until two rounds in a row ran at most two per
   * processor at once: the gate bounds them once it has measured a window of them on code the JIT
   * has compiled, which takes a few rounds in a fresh JVM. A call answered "not run" (a read batch
   * that found no turn) shows a bound too.
   */
  private void computeUntilBounded() throws Exception {
    int inARow = 0;
    for (int round = 0; round < 100 && inARow < 2; round++) {
      handler.mostRunning.set(0);
      computeFromEveryCaller(20, refusal -> {});
      inARow = handler.mostRunning.get() <= 2 * PROCESSORS ? inARow + 1 : 0;
    }
    assertThat(inARow)
        .as("rounds in a row of %d callers' computing calls bounded to two per processor", CALLERS)
        .isEqualTo(2);
  }

  /**
   * {@code calls} computing calls from each caller thread, all at once; a call answered "not run"
   * gives its message to {@code onRefused} (on the caller's thread).
   *
   * @return the calls answered
   */
  private int computeFromEveryCaller(int calls, Consumer<String> onRefused) throws Exception {
    AtomicInteger answered = new AtomicInteger();
    List<Future<?>> done = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      done.add(
          callers.submit(
              () -> {
                try (BenchConnection connection =
                    ClientKinds.stockSocket()
                        .connect(server.localAddress(), new TBinaryProtocol.Factory())) {
                  for (int i = 0; i < calls; i++) {
                    try {
                      connection.iface().echo(ByteBuffer.wrap(new byte[] {COMPUTE}));
                      answered.incrementAndGet();
                    } catch (TApplicationException e) {
                      assertThat(e.getMessage()).startsWith("not run: server overloaded: ");
                      onRefused.accept(e.getMessage());
                    }
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(50, TimeUnit.SECONDS);
    }
    return answered.get();
  }

  /** {@code calls} calls of {@code kind} from each caller thread, all at once; their results. */
  private List<Byte> callFromEveryCaller(byte kind, int calls) throws Exception {
    List<Future<List<Byte>>> done = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      done.add(
          callers.submit(
              () -> {
                List<Byte> results = new ArrayList<>();
                try (BenchConnection connection =
                    ClientKinds.stockSocket()
                        .connect(server.localAddress(), new TBinaryProtocol.Factory())) {
                  for (int i = 0; i < calls; i++) {
                    ByteBuffer r = connection.iface().echo(ByteBuffer.wrap(new byte[] {kind}));
                    results.add(r.get(r.position()));
                  }
                }
                return results;
              }));
    }
    List<Byte> all = new ArrayList<>();
    for (Future<List<Byte>> f : done) {
      all.addAll(f.get(50, TimeUnit.SECONDS));
    }
    return all;
  }

  @Test
  void callsThatComputeRunAboutOnePerProcessorAtOnce() throws Exception {
    start(b -> b);
    computeUntilBounded();
    handler.mostRunning.set(0);
    callFromEveryCaller(COMPUTE, 20);
    assertThat(handler.mostRunning.get())
        .as("handlers computing at once, %d callers, %d processors", CALLERS, PROCESSORS)
        .isBetween(1, 2 * PROCESSORS);
  }

  @Test
  void callsWaitingForATurnToComputeHoldNoWorkerThread() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        strategy() == IoStrategy.WORKER,
        "LEADER_FOLLOWER: a read batch waits for its turn on its reading thread, briefly");
    start(b -> b);
    computeUntilBounded();
    // Sampled while every caller computes: threads of this JVM parked for a turn (in the gate's
    // wait for a permit). A call that waits for its turn waits as a task, not on a worker.
    AtomicInteger samples = new AtomicInteger();
    AtomicInteger mostParked = new AtomicInteger();
    AtomicInteger stop = new AtomicInteger();
    Thread sampler =
        new Thread(
            () -> {
              while (stop.get() == 0) {
                int parked = 0;
                for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
                  for (StackTraceElement frame : stack) {
                    if (frame.getClassName().endsWith(".RunGate")
                        && frame.getMethodName().equals("enter")) {
                      parked++;
                      break;
                    }
                  }
                }
                if (handler.running.get() > 0) {
                  samples.incrementAndGet();
                  mostParked.accumulateAndGet(parked, Math::max);
                }
                Thread.onSpinWait();
              }
            },
            "run-gate-sampler");
    sampler.start();
    try {
      callFromEveryCaller(COMPUTE, 20);
    } finally {
      stop.set(1);
      sampler.join(10_000);
    }
    assertThat(samples.get()).as("samples taken while calls computed").isPositive();
    assertThat(mostParked.get())
        .as("worker threads parked for a turn, %d callers, %d processors", CALLERS, PROCESSORS)
        .isZero();
  }

  @Test
  void pipelinedComputingCallsAreAnsweredInOrderWhileOthersWaitForATurn() throws Exception {
    start(b -> b);
    computeUntilBounded();
    // One connection pipelines its calls while every caller computes: the replies that workers
    // write as their calls end, some while later calls of the connection still wait for a turn,
    // leave in request order, each with its own payload.
    int calls = 30;
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (int seqid = 1; seqid <= calls; seqid++) {
      all.writeBytes(
          RawConnection.frame(
              RawConnection.encodeCall(
                  new TBinaryProtocol.Factory(),
                  "echo",
                  seqid,
                  new io.thriftnio.testkit.gen.BenchService.echo_args(
                      ByteBuffer.wrap(new byte[] {COMPUTE, (byte) seqid})))));
    }
    ExecutorService background = Executors.newSingleThreadExecutor();
    Future<Integer> others = background.submit(() -> computeFromEveryCaller(5, refusal -> {}));
    background.shutdown();
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      c.write(all.toByteArray());
      for (int seqid = 1; seqid <= calls; seqid++) {
        io.thriftnio.testkit.gen.BenchService.echo_result result =
            new io.thriftnio.testkit.gen.BenchService.echo_result();
        assertThat(
                RawConnection.decodeReply(new TBinaryProtocol.Factory(), c.readFrame(), result)
                    .seqid)
            .isEqualTo(seqid);
        assertThat(result.getSuccess()).isEqualTo(new byte[] {COMPUTE, (byte) seqid});
      }
    }
    others.get(50, TimeUnit.SECONDS);
  }

  @Test
  void callsOverTheWorkerQueueCapacityWaitingForATurnAreAnsweredNotRun() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        strategy() == IoStrategy.WORKER, "WORKER: calls wait for their turn in a queue");
    start(b -> b.workerQueueCapacity(2));
    // Whether more calls than the turn queue holds wait for a turn at once is up to the calls'
    // timing: with other test JVMs busy beside this one a round has ended without one refusal for a
    // full turn queue. Such a round is checked as any other and repeated, up to five in all.
    int turnQueueFull = 0;
    for (int round = 0; round < 5 && turnQueueFull == 0; round++) {
      turnQueueFull = refusalsForAFullTurnQueueInOneRound();
    }
    assertThat(turnQueueFull)
        .as("calls refused for a full turn queue, %d callers", CALLERS)
        .isPositive();
  }

  /**
   * One round of computing calls on a bounded gate with a short turn queue: every call is answered
   * or refused, each refusal says which queue was full, and the stats agree.
   *
   * @return the calls refused because the turn queue was full
   */
  private int refusalsForAFullTurnQueueInOneRound() throws Exception {
    computeUntilBounded();
    int runsBefore = handler.runs.get();
    long refusedBefore = server.stats().overloadedCalls();
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger turnQueueFull = new AtomicInteger();
    int answered =
        computeFromEveryCaller(
            20,
            message -> {
              refused.incrementAndGet();
              if (message.contains(" calls wait for a turn to compute")) {
                assertThat(message)
                    .matches(
                        "not run: server overloaded: echo not queued: \\d+ calls wait for a turn"
                            + " to compute, the most workerQueueCapacity allows \\(\\d+ calls"
                            + " computing at once at most\\).*");
                turnQueueFull.incrementAndGet();
              } else { // the pool's own queue, as full as it may be, while workers wake
                assertThat(message)
                    .startsWith("not run: server overloaded: echo refused, the worker executor");
              }
            });
    assertThat(refused.get() + answered).isEqualTo(20 * CALLERS);
    assertThat(answered).as("calls run").isPositive();
    assertThat(handler.runs.get() - runsBefore).isEqualTo(answered);
    assertThat(server.stats().overloadedCalls() - refusedBefore).isEqualTo(refused.get());
    return turnQueueFull.get();
  }

  @Test
  void callsThatWaitRunOnEveryWorkerAgainOnceTheyAreMeasured() throws Exception {
    start(b -> b);
    computeUntilBounded();
    int most = 0;
    for (int round = 0; round < 40 && most < CALLERS; round++) {
      handler.mostRunning.set(0);
      callFromEveryCaller(WAIT, 1);
      most = handler.mostRunning.get();
    }
    assertThat(most)
        .as("a round in which all %d waiting calls ran at once", CALLERS)
        .isEqualTo(CALLERS);
  }

  @Test
  void callsThatBlockRunOnEveryWorkerSoonAfterComputingCallsBoundedTheGate() throws Exception {
    start(b -> b);
    computeUntilBounded();
    handler.mostRunning.set(0);
    // Every caller's call now blocks for a second. The measures still say "computing", so the
    // few permits' holders block and the other calls wait for them, a second a round, until the
    // gate's safety valve sees the processors idle while calls wait, and opens it.
    callFromEveryCaller(BLOCK, 1);
    assertThat(handler.mostRunning.get())
        .as("blocking calls running at once, %d callers, %d processors", CALLERS, PROCESSORS)
        .isEqualTo(CALLERS);
  }

  @Test
  void aReadBatchThatFindsNoTurnSoonIsAnsweredNotRun() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        strategy() == IoStrategy.LEADER_FOLLOWER,
        "WORKER: a call waits for its turn as for a worker, shed by the queue-time bound");
    // A turn is waited for a fifth of the target: 1 ms at the default target, where each call
    // computes 1 ms and there are far more callers than turns.
    start(b -> b.queueTimeTarget(ServerBuilder.DEFAULT_QUEUE_TIME_TARGET));
    computeUntilBounded();
    int runsBefore = handler.runs.get();
    long refusedBefore = server.stats().overloadedCalls();
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger refusedAtOnce = new AtomicInteger();
    int answered =
        computeFromEveryCaller(
            60,
            message -> {
              assertThat(message).startsWith("not run: server overloaded: echo not started: ");
              refused.incrementAndGet();
              if (message.contains("no turn to run within ")) {
                assertThat(message).contains("no turn to run within 1 ms");
              }
              if (message.contains(" read batches wait for one, about ")) {
                refusedAtOnce.incrementAndGet();
              }
            });
    assertThat(refused.get() + answered).isEqualTo(60 * CALLERS);
    assertThat(refused.get()).as("calls answered not run").isPositive();
    assertThat(refusedAtOnce.get())
        .as("calls refused at once, behind batches that would hold the turn past the wait")
        .isPositive();
    assertThat(answered).as("calls run").isPositive();
    assertThat(handler.runs.get() - runsBefore).isEqualTo(answered);
    assertThat(server.stats().overloadedCalls() - refusedBefore).isEqualTo(refused.get());
  }

  @Test
  void turnedOffEveryWorkerRunsCallsThatCompute() throws Exception {
    start(b -> b.boundComputingCalls(false));
    handler.mostRunning.set(0);
    callFromEveryCaller(COMPUTE, 20);
    assertThat(handler.mostRunning.get())
        .as("handlers computing at once, %d callers, %d processors", CALLERS, PROCESSORS)
        .isGreaterThan(2 * PROCESSORS);
  }

  /**
   * {@code echo}: {@code [0]} computes for 1 ms of CPU; {@code [1]} sleeps 50 ms; {@code [2]}
   * sleeps a second; each returns its payload.
   */
  private static final class Handler extends BenchHandler {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostRunning = new AtomicInteger();
    volatile long sink;

    @Override
    public ByteBuffer echo(ByteBuffer payload) {
      byte kind = payload.get(payload.position());
      runs.incrementAndGet();
      mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        if (kind == WAIT) {
          Thread.sleep(50);
        } else if (kind == BLOCK) {
          Thread.sleep(1000);
        } else {
          long until = THREADS.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(1);
          long x = 0;
          while (THREADS.getCurrentThreadCpuTime() < until) {
            for (int i = 0; i < 1000; i++) {
              x += x * 31 + i;
            }
          }
          sink = x;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        running.decrementAndGet();
      }
      ByteBuffer reply = ByteBuffer.allocate(payload.remaining()); // the payload, echoed
      reply.put(payload.duplicate()).flip();
      return reply;
    }
  }
}
