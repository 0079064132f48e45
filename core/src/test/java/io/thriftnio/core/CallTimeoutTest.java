package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.MiniService.Reply;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.ServerCounters;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code handlerTimeout} on the call path, through the in-memory adapter: the timeout answer, the
 * late result discarded (its request released once), the interceptors' one outcome, and a call that
 * times out before it starts. The transports' behaviour is in the conformance suite.
 */
@Timeout(20)
class CallTimeoutTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final int MAX = 4096;
  private static final Duration TIMEOUT = Duration.ofMillis(100);

  private final ServerCounters counters = new ServerCounters();
  private final MemoryConnection connection = new MemoryConnection();
  private final List<Runnable> handlers = new CopyOnWriteArrayList<>();
  private final ExecutorService workers = Executors.newSingleThreadExecutor();

  @AfterEach
  void everyRequestReleasedOnce() {
    workers.shutdownNow();
    assertThat(connection.allReleasedOnce()).as("every request released exactly once").isTrue();
  }

  /** Records every call's end as {@code method:seqid:OUTCOME}, and the thread it ran on. */
  private static final class Outcomes implements ServerInterceptor {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final CountDownLatch first = new CountDownLatch(1);

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      seen.add(context.methodName() + ":" + context.seqId() + ":" + outcome);
      first.countDown();
    }
  }

  /** Async handlers whose completions wait in {@link #handlers} until the test runs them. */
  private CallSequencer async(Executor worker, int maxInFlight, ServerInterceptor... chain) {
    return async(worker, maxInFlight, TIMEOUT, chain);
  }

  private CallSequencer async(
      Executor worker, int maxInFlight, Duration handlerTimeout, ServerInterceptor... chain) {
    ProcessorInvoker invoker =
        ProcessorInvoker.ofAsync(new MiniService.Async(handlers::add), BINARY, BINARY, MAX)
            .withInterceptors(List.of(chain));
    return CallPath.builder(invoker, counters)
        .worker(worker)
        .maxCallsInFlight(maxInFlight)
        .workerStartTimeout(Duration.ofSeconds(30))
        .handlerTimeout(handlerTimeout)
        .build()
        .open(connection);
  }

  private void deliver(CallSequencer seq, String method, int seqid) throws Exception {
    seq.onRequest(MiniService.call(BINARY, method, seqid, "t" + seqid), connection.newRequest());
  }

  private List<Reply> replies() throws Exception {
    List<Reply> replies = new ArrayList<>();
    for (ByteBuffer frame : connection.sent) {
      replies.add(MiniService.decode(BINARY, frame));
    }
    return replies;
  }

  /** Runs what the timer handed to the IO thread (this one) once it has. */
  private void awaitHandOver() throws InterruptedException {
    assertThat(connection.awaitIoTask(10_000)).as("the timeout hands its reply over").isTrue();
    connection.runIoTasks();
  }

  private static void assertTimedOut(Reply reply, String method, int seqid) {
    assertTimedOut(reply, method, seqid, TIMEOUT);
  }

  private static void assertTimedOut(Reply reply, String method, int seqid, Duration timeout) {
    assertThat(reply.header().seqid).isEqualTo(seqid);
    assertThat(reply.exception()).as("an exception reply").isNotNull();
    assertThat(reply.exception().getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(reply.exception().getMessage())
        .isEqualTo(
            method + " did not complete within handlerTimeout " + timeout.toMillis() + " ms");
  }

  @Test
  void aCallNeverCompletedIsAnsweredAtTheTimeoutAndItsLateResultIsDiscarded() throws Exception {
    Outcomes outcomes = new Outcomes();
    CallSequencer seq = async(null, 100, outcomes);
    long start = System.nanoTime();
    deliver(seq, "echo", 1);
    deliver(seq, "upper", 2);
    seq.readComplete();
    handlers.remove(1).run(); // 2 completes; 1 never does
    assertThat(connection.sent).as("2 waits behind 1").isEmpty();

    awaitHandOver();
    assertThat(System.nanoTime() - start)
        .as("not before the timeout")
        .isGreaterThanOrEqualTo(TIMEOUT.toNanos());
    assertThat(replies()).hasSize(2);
    assertTimedOut(replies().get(0), "echo", 1);
    assertThat(replies().get(1).success()).isEqualTo("T2");
    assertThat(counters.timedOutCalls.sum()).isEqualTo(1);
    assertThat(counters.failedCalls.sum()).isEqualTo(1);
    assertThat(counters.completedCalls.sum()).isEqualTo(2);
    assertThat(connection.requests.get(0).releases.get())
        .as("the running handler may still read its request")
        .isZero();
    assertThat(seq.pendingCalls()).isZero();

    handlers.remove(0).run(); // the late result
    connection.runIoTasks();
    assertThat(connection.sent).as("no second reply to seqid 1").hasSize(2);
    assertThat(counters.completedCalls.sum()).as("nothing counted twice").isEqualTo(2);
    assertThat(counters.failedCalls.sum()).isEqualTo(1);
    assertThat(connection.requests.get(0).releases.get())
        .as("released by the late result")
        .isEqualTo(1);
    assertThat(outcomes.seen)
        .containsExactlyInAnyOrder(
            "upper:2:" + CallOutcome.SUCCESS, "echo:1:" + CallOutcome.TIMED_OUT);
  }

  @Test
  void aTimeoutWhileAnInterceptorStillRunsIsSeenOnceOnTheCallsThreadAndTheHandlerNeverRuns()
      throws Exception {
    CountDownLatch inBeforeCall = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    ServerInterceptor slow =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            inBeforeCall.countDown();
            try {
              letGo.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    Outcomes outcomes = new Outcomes();
    // Long enough for a worker to reach beforeCall first on a loaded machine (100 ms was not, at a
    // load of 20): the case is a timeout that finds the call in its interceptor.
    Duration timeout = Duration.ofSeconds(1);
    CallSequencer seq = async(workers, 100, timeout, outcomes, slow);
    deliver(seq, "echo", 1);
    seq.readComplete();
    assertThat(inBeforeCall.await(10, TimeUnit.SECONDS)).isTrue();

    awaitHandOver();
    assertTimedOut(replies().get(0), "echo", 1, timeout);
    assertThat(outcomes.seen).as("left to the call's thread, still in beforeCall").isEmpty();
    letGo.countDown();
    assertThat(outcomes.first.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(outcomes.seen)
        .as("the interceptor that entered sees the timeout once")
        .containsExactly("echo:1:" + CallOutcome.TIMED_OUT);
    workers.shutdown();
    assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(handlers).as("the handler never ran").isEmpty();
    assertThat(outcomes.seen).hasSize(1);
    assertThat(connection.sent).hasSize(1);
    assertThat(counters.completedCalls.sum()).as("it had started: a worker took it").isEqualTo(1);
    assertThat(connection.requests.get(0).releases.get()).isEqualTo(1);
  }

  @Test
  void aCallStillWaitingForTheInFlightLimitTimesOutToo() throws Exception {
    CallSequencer seq = async(null, 1);
    deliver(seq, "echo", 1); // dispatched; never completes
    deliver(seq, "echo", 2); // waits for the limit
    seq.readComplete();
    assertThat(handlers).hasSize(1);

    while (connection.sent.size() < 2) {
      awaitHandOver(); // 2 may be dispatched after 1 times out, then time out itself
    }
    assertTimedOut(replies().get(0), "echo", 1);
    if (handlers.size() == 2) {
      assertTimedOut(replies().get(1), "echo", 2); // dispatched when 1 timed out, then timed out
    } else {
      Reply notRun = replies().get(1);
      assertThat(notRun.header().seqid).isEqualTo(2);
      assertThat(notRun.exception().getMessage())
          .as("its handler never ran, and the answer says so")
          .isEqualTo("not run: echo did not complete within handlerTimeout 100 ms");
      assertThat(NotRun.isNotRun(notRun.exception())).isTrue();
    }
    assertThat(counters.timedOutCalls.sum()).isEqualTo(2);
    assertThat(counters.failedCalls.sum()).isEqualTo(2);
    assertThat(counters.completedCalls.sum())
        .as("1, and 2 only if it was dispatched before its time was up")
        .isEqualTo(handlers.size());
    for (Runnable late : handlers) {
      late.run(); // releases the requests the running calls kept
    }
    connection.runIoTasks();
    assertThat(connection.sent).hasSize(2);
    assertThat(seq.pendingCalls()).isZero();
    assertThat(seq.isReadingPaused()).as("reading resumes").isFalse();
  }
}
