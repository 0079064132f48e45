package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.ServerCounters;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ServerBuilder.adaptiveLimit} (issue 41): admission and refusal, without timing. A call
 * holds its place under the limit from dispatch to answer; a call that finds the limit reached is
 * answered {@code not run} at once, without running, as an overload; a call answered gives its
 * place back, whether it ran or was shed.
 */
@Timeout(10)
class AdaptiveLimitTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final int MAX = 4096;

  private final ServerCounters counters = new ServerCounters();
  private final MemoryConnection connection = new MemoryConnection();
  private final MiniService.Sync processor = new MiniService.Sync();

  /** A worker executor that starts its tasks when the test says so, on the test's thread. */
  private static final class HeldWorker implements Executor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    void runAll() {
      for (Runnable t; (t = tasks.poll()) != null; ) {
        t.run();
      }
    }
  }

  private final HeldWorker worker = new HeldWorker();

  @AfterEach
  void everyRequestReleasedOnce() {
    assertThat(connection.allReleasedOnce()).as("every request released exactly once").isTrue();
  }

  /** A WORKER connection under an adaptive limit whose floor is its maximum: it stays there. */
  private CallSequencer server(int limit) {
    ProcessorInvoker invoker = ProcessorInvoker.of(processor, BINARY, BINARY, MAX);
    return CallPath.builder(invoker, counters)
        .worker(worker)
        .maxCallsInFlight(100)
        .workerStartTimeout(Duration.ofSeconds(30))
        .limit(AdaptiveLimit.forServer(limit))
        .build()
        .open(connection);
  }

  private void send(CallSequencer seq, int seqid) throws Exception {
    seq.onRequest(MiniService.call(BINARY, "echo", seqid, "x" + seqid), connection.newRequest());
    seq.readComplete();
  }

  private List<MiniService.Reply> replies() throws Exception {
    connection.runIoTasks();
    List<MiniService.Reply> replies = new ArrayList<>();
    for (ByteBuffer frame : connection.sent) {
      replies.add(MiniService.decode(BINARY, frame));
    }
    connection.sent.clear();
    return replies;
  }

  @Test
  void callsOverTheLimitAreAnsweredNotRunAtOnceAndTheAdmittedOnesRun() throws Exception {
    CallSequencer seq = server(3);
    for (int seqid = 1; seqid <= 5; seqid++) {
      send(seq, seqid);
    }
    assertThat(worker.tasks).as("only the admitted calls wait for a worker").hasSize(3);
    assertThat(counters.overloadedCalls.sum()).isEqualTo(2);

    worker.runAll();
    List<MiniService.Reply> replies = replies();
    assertThat(replies).extracting(r -> r.header().seqid).containsExactly(1, 2, 3, 4, 5);
    assertThat(replies.subList(0, 3))
        .extracting(MiniService.Reply::success)
        .containsExactly("x1", "x2", "x3");
    for (MiniService.Reply refused : replies.subList(3, 5)) {
      TApplicationException e = refused.exception();
      assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
      assertThat(NotRun.isNotRun(e)).as(e.getMessage()).isTrue();
      assertThat(e.getMessage())
          .startsWith(
              "not run: server overloaded: echo refused at the adaptive limit (limit=3"
                  + " reached, max 3)");
    }
    assertThat(counters.completedCalls.sum()).isEqualTo(3);
  }

  @Test
  void answeredCallsGiveTheirPlaceBackWhetherTheyRanOrWereShed() throws Exception {
    CallSequencer seq = server(2);
    send(seq, 1);
    send(seq, 2);
    worker.runAll();
    assertThat(replies()).extracting(MiniService.Reply::success).containsExactly("x1", "x2");

    // Two more: admitted again, the places of the first two given back when they were answered.
    send(seq, 3);
    send(seq, 4);
    send(seq, 5); // over the limit
    assertThat(worker.tasks).hasSize(2);
    worker.runAll();
    assertThat(replies()).extracting(r -> r.exception() == null).containsExactly(true, true, false);

    // A call shed by the executor (it refuses) gives its place back too.
    CallSequencer refusing =
        CallPath.builder(ProcessorInvoker.of(processor, BINARY, BINARY, MAX), counters)
            .worker(
                task -> {
                  throw new java.util.concurrent.RejectedExecutionException("full");
                })
            .maxCallsInFlight(100)
            .workerStartTimeout(Duration.ofSeconds(30))
            .limit(AdaptiveLimit.forServer(1))
            .build()
            .open(connection);
    for (int seqid = 6; seqid <= 8; seqid++) {
      send(refusing, seqid);
    }
    assertThat(replies())
        .extracting(r -> r.exception().getMessage())
        .allSatisfy(m -> assertThat(m).contains("the worker executor is full"));
  }

  @Test
  void buildRefusesAMaximumBelowOne() {
    assertThatThrownBy(
            () ->
                new ServerBuilderTest.StubBuilder()
                    .processor(processor)
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .adaptiveLimit(0)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("adaptiveLimit: 0 (expected: > 0)");
    ThriftServer built =
        new ServerBuilderTest.StubBuilder()
            .processor(processor)
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .adaptiveLimit(200)
            .build();
    assertThat(built.config().adaptiveLimit()).isEqualTo(200);
    assertThat(built.config().toString()).contains("adaptiveLimit=200");
  }
}
