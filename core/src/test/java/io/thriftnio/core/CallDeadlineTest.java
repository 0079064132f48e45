package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.ServerCodec;
import io.thriftnio.core.wire.THeaderFrames;
import io.thriftnio.core.wire.WireEvent;
import io.thriftnio.core.wire.WireSettings;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The caller's deadline ({@link ServerCallContext#CLIENT_TIMEOUT_HEADER}): read into {@link
 * ServerCallContext#deadline()}, and a call whose deadline passed while it waited for a worker is
 * answered at once without running its handler, counted, and seen by the interceptors.
 */
@Timeout(10)
class CallDeadlineTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final int MAX = 4096;

  private final ServerCounters counters = new ServerCounters();
  private final MemoryConnection connection = new MemoryConnection();
  private final List<CallOutcome> outcomes = new CopyOnWriteArrayList<>();
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

  private CallSequencer server() {
    ServerInterceptor recording =
        new ServerInterceptor() {
          @Override
          public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
            outcomes.add(outcome);
          }
        };
    ProcessorInvoker invoker =
        ProcessorInvoker.of(processor, BINARY, BINARY, MAX).withInterceptors(List.of(recording));
    return CallPath.builder(invoker, counters)
        .worker(worker)
        .maxCallsInFlight(100)
        .build()
        .open(connection);
  }

  private void deliver(CallSequencer seq, WireKind kind, byte[] bytes) {
    ServerCodec codec =
        new ServerCodec(
            WireSettings.of(MAX, EnumSet.of(kind), null, "/"),
            InetSocketAddress.createUnresolved("test-peer", 0));
    assertThat(codec.next(ByteSource.of(bytes), 0, bytes.length)).isEqualTo(WireEvent.MESSAGE);
    Decoded d = codec.decoded();
    ByteBuffer payload = ByteBuffer.wrap(bytes, d.payloadOffset(), d.payloadLength()).slice();
    seq.onRequest(payload, connection.newRequest(), d.envelope());
    seq.readComplete();
  }

  private static byte[] withTimeout(String timeout, String method, int seqid) throws Exception {
    ByteBuffer m = MiniService.call(BINARY, method, seqid, "x");
    byte[] message = new byte[m.remaining()];
    m.get(message);
    return THeaderFrames.request()
        .seqId(seqid)
        .header(ServerCallContext.CLIENT_TIMEOUT_HEADER, timeout)
        .frame(message);
  }

  private MiniService.Reply onlyReply() throws Exception {
    connection.runIoTasks();
    assertThat(connection.sent).hasSize(1);
    ByteBuffer sent = connection.sent.get(0);
    byte[] bytes = new byte[sent.remaining()];
    sent.duplicate().get(bytes);
    byte[] message = THeaderFrames.read(bytes).message;
    return MiniService.decode(
        BINARY, ByteBuffer.allocate(4 + message.length).putInt(message.length).put(message).flip());
  }

  @Test
  void theHandlerSeesTheDeadlineTheCallerSent() throws Exception {
    CallSequencer seq = server();
    deliver(seq, WireKind.HEADER, withTimeout("60000", "remaining", 1));
    worker.runAll();
    assertThat(onlyReply().success()).isEqualTo("positive");
    assertThat(outcomes).containsExactly(CallOutcome.SUCCESS);
  }

  @Test
  void aCallWhoseDeadlinePassedWhileItWaitedForAWorkerIsAnsweredNotRun() throws Exception {
    CallSequencer seq = server();
    deliver(seq, WireKind.HEADER, withTimeout("1", "echo", 7));
    long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
    while (System.nanoTime() - due < 0) {
      Thread.onSpinWait(); // the deadline passing is the event: 2 ms of the test's own clock
    }
    worker.runAll();

    MiniService.Reply reply = onlyReply();
    assertThat(reply.header().seqid).isEqualTo(7);
    assertThat(reply.exception().getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(NotRun.isNotRun(reply.exception())).as(reply.exception().getMessage()).isTrue();
    assertThat(reply.exception().getMessage())
        .startsWith(
            "not run: server overloaded: echo not started within the caller's deadline"
                + " (client_timeout 1 ms, waited ");
    assertThat(processor.lastThread).as("the handler never ran").isNull();
    assertThat(outcomes).as("the interceptors never saw it, as any overload").isEmpty();
    assertThat(counters.overloadedCalls.sum()).isEqualTo(1);
    assertThat(counters.timedOutCalls.sum()).isZero();
    assertThat(counters.failedCalls.sum()).isZero();
    assertThat(counters.completedCalls.sum()).isZero();
  }

  /** Issue 41: the handler and the interceptors see how long the call waited for a worker. */
  /**
   * Calls that wait past their callers' deadlines are a queue that stands: each one's wait is a
   * sample of the queue-time bound, so that once they have stood for its interval, a call that
   * waited past the target is shed too (found in the overload bench: with every start past its
   * caller's deadline the bound saw no wait and never shed, and the server spent its CPU answering
   * calls after their callers had given up).
   */
  @Test
  void callsShedAtTheirCallersDeadlineShowTheQueueStanding() throws Exception {
    CallSequencer seq = server();
    int seqid = 0;
    long streakStart = 0;
    long last = 0;
    while (last - streakStart < TimeUnit.MILLISECONDS.toNanos(130)) {
      deliver(seq, WireKind.HEADER, withTimeout("6", "echo", ++seqid));
      spinFor(TimeUnit.MILLISECONDS.toNanos(7)); // past its deadline, and past the 5 ms target
      long now = System.nanoTime();
      worker.runAll(); // answered not run: past the caller's deadline
      if (last == 0 || now - last > TimeUnit.MILLISECONDS.toNanos(50)) {
        streakStart = now; // the machine held the test back: the samples start over
      }
      last = now;
    }
    deliver(seq, WireKind.HEADER, withTimeout("60000", "echo", ++seqid));
    spinFor(TimeUnit.MILLISECONDS.toNanos(6)); // past the target, far from its deadline
    worker.runAll();

    List<MiniService.Reply> replies = replies();
    assertThat(replies).hasSize(seqid);
    assertThat(replies.get(0).exception().getMessage())
        .contains("not started within the caller's deadline");
    TApplicationException probe = replies.get(seqid - 1).exception();
    assertThat(probe).as("%s", replies.get(seqid - 1)).isNotNull();
    assertThat(NotRun.isNotRun(probe)).isTrue();
    assertThat(probe.getMessage()).contains("over the queue-time target 5 ms, overloaded for");
    assertThat(processor.lastThread).as("no handler ran").isNull();
  }

  private static void spinFor(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() - end < 0) {
      Thread.onSpinWait(); // the wait is the event: the test's own clock
    }
  }

  private List<MiniService.Reply> replies() throws Exception {
    connection.runIoTasks();
    List<MiniService.Reply> replies = new java.util.ArrayList<>();
    for (ByteBuffer sent : connection.sent) {
      byte[] bytes = new byte[sent.remaining()];
      sent.duplicate().get(bytes);
      byte[] message = THeaderFrames.read(bytes).message;
      replies.add(
          MiniService.decode(
              BINARY,
              ByteBuffer.allocate(4 + message.length).putInt(message.length).put(message).flip()));
    }
    return replies;
  }

  @Test
  void theCallSeesHowLongItWaitedToStart() throws Exception {
    CallSequencer seq = server();
    deliver(seq, WireKind.HEADER, withTimeout("60000", "queued", 3));
    long waited = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
    while (System.nanoTime() - waited < 0) {
      Thread.onSpinWait(); // the wait for the worker is the event: 2 ms of the test's own clock
    }
    worker.runAll();
    long queued = Long.parseLong(onlyReply().success());
    assertThat(queued).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(2));
  }

  @Test
  void anUnreadableOrNegativeTimeoutIsIgnored() throws Exception {
    for (String bad : List.of("abc", "-5", "1.5", "", " 10")) {
      connection.sent.clear();
      CallSequencer seq = server();
      deliver(seq, WireKind.HEADER, withTimeout(bad, "remaining", 1));
      worker.runAll();
      assertThat(onlyReply().success()).as("client_timeout \"%s\"", bad).isEqualTo("<none>");
    }
    assertThat(counters.timedOutCalls.sum()).isZero();
  }

  @Test
  void zeroMeansNoDeadline() throws Exception {
    CallSequencer seq = server();
    deliver(seq, WireKind.HEADER, withTimeout("0", "remaining", 1));
    worker.runAll();
    assertThat(onlyReply().success()).isEqualTo("<none>");
  }

  @Test
  void anHttpRequestsFieldSetsTheDeadlineToo() throws Exception {
    CallSequencer seq = server();
    ByteBuffer m = MiniService.call(BINARY, "remaining", 1, "x");
    byte[] body = new byte[m.remaining()];
    m.get(body);
    byte[] head =
        ("POST / HTTP/1.1\r\nHost: x\r\nClient_Timeout: 60000\r\nContent-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    deliver(
        seq,
        WireKind.HTTP,
        ByteBuffer.allocate(head.length + body.length).put(head).put(body).array());
    worker.runAll();
    connection.runIoTasks();
    String response =
        new String(connection.sent.get(0).array(), java.nio.charset.StandardCharsets.ISO_8859_1);
    assertThat(response).startsWith("HTTP/1.1 200 OK").contains("positive");
  }

  @Test
  void aFramedCallHasNoDeadline() throws Exception {
    CallSequencer seq = server();
    seq.onRequest(MiniService.call(BINARY, "remaining", 1, "x"), connection.newRequest());
    seq.readComplete();
    worker.runAll();
    connection.runIoTasks();
    assertThat(MiniService.decode(BINARY, connection.sent.get(0)).success()).isEqualTo("<none>");
  }
}
