package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.TooManyCallsInFlightException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The call table over an in-memory link: no sockets, milliseconds per test. */
@Timeout(30)
class PipelinedCallsTest {

  private static final InetSocketAddress PEER = InetSocketAddress.createUnresolved("db1", 9090);

  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final MemoryLink link = new MemoryLink();

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  private PipelinedCalls table(int maxCallsInFlightPerConnection) {
    return table(maxCallsInFlightPerConnection, ClientOptions.DEFAULT_LATE_REPLY_TIMEOUT);
  }

  private PipelinedCalls table(int maxCallsInFlightPerConnection, Duration lateReplyTimeout) {
    ClientOptions options =
        ClientOptions.builder()
            .maxFrameSize(100)
            .maxCallsInFlightPerConnection(maxCallsInFlightPerConnection)
            .lateReplyTimeout(lateReplyTimeout)
            .build();
    return new PipelinedCalls(PEER, options, timer, link);
  }

  private static CompletableFuture<ByteBuffer> exchange(PipelinedCalls calls, ByteBuffer request) {
    return exchange(calls, request, Duration.ofSeconds(5));
  }

  private static CompletableFuture<ByteBuffer> exchange(
      PipelinedCalls calls, ByteBuffer request, Duration timeout) {
    return calls.exchange(request, timeout, Runnable::run, null);
  }

  private static CompletableFuture<Void> send(PipelinedCalls calls, ByteBuffer request) {
    return calls.send(request, Runnable::run, null);
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
  }

  /** A strict-binary CALL header for {@code name} with {@code seqId}, and an empty struct. */
  private static ByteBuffer message(String name, int seqId) {
    ByteBuffer b = ByteBuffer.allocate(13 + name.length());
    b.putInt(0x80010001).putInt(name.length()).put(name.getBytes(StandardCharsets.US_ASCII));
    b.putInt(seqId).put((byte) 0).flip();
    return b;
  }

  private static String text(ByteBuffer b) {
    return StandardCharsets.US_ASCII.decode(b.duplicate()).toString();
  }

  @Test
  void responsesCompleteCallsFirstInFirstOutAndOneFlushCoversABatch() throws Exception {
    PipelinedCalls calls = table(10);
    link.writable = false; // hold the drain so that three calls leave in one batch
    CompletableFuture<ByteBuffer> a = exchange(calls, bytes("a"));
    CompletableFuture<ByteBuffer> b = exchange(calls, bytes("b"));
    CompletableFuture<Void> c = send(calls, bytes("c"));
    CompletableFuture<ByteBuffer> d = exchange(calls, bytes("d"));
    link.writable = true;
    calls.writable();
    assertThat(link.written)
        .extracting(PipelinedCallsTest::text)
        .containsExactly("a", "b", "c", "d");
    assertThat(link.flushes).isEqualTo(1);
    assertThat(c).isCompleted();
    calls.onResponse(bytes("A"));
    calls.onResponse(bytes("B"));
    calls.onResponse(bytes("D"));
    assertThat(text(a.get())).isEqualTo("A");
    assertThat(text(b.get())).isEqualTo("B");
    assertThat(text(d.get())).isEqualTo("D");
    assertThat(calls.pendingCalls()).isZero();
  }

  @Test
  void aCallOverMaxPendingCallsFailsAloneAndTheTableStaysUsable() throws Exception {
    PipelinedCalls calls = table(2);
    exchange(calls, bytes("a"));
    exchange(calls, bytes("b"));
    assertThatThrownBy(() -> exchange(calls, bytes("c")).get())
        .hasCauseInstanceOf(TooManyCallsInFlightException.class)
        .hasMessageContaining("pending calls: 2 (limit: 2) to " + PEER);
    calls.onResponse(bytes("A"));
    CompletableFuture<ByteBuffer> c = exchange(calls, bytes("c"));
    calls.onResponse(bytes("B"));
    calls.onResponse(bytes("C"));
    assertThat(text(c.get())).isEqualTo("C");
    assertThat(link.closed).isFalse();
  }

  @Test
  void onewaysCountAgainstTheBoundUntilWritten() throws Exception {
    PipelinedCalls calls = table(2);
    link.writable = false; // a socket that does not drain
    CompletableFuture<Void> first = send(calls, bytes("1"));
    CompletableFuture<Void> second = send(calls, bytes("2"));
    assertThatThrownBy(() -> send(calls, bytes("3")).get())
        .hasCauseInstanceOf(TooManyCallsInFlightException.class);
    assertThat(link.written).isEmpty();
    link.writable = true;
    calls.writable();
    assertThat(first).isCompleted();
    assertThat(second).isCompleted();
    assertThat(calls.pendingCalls()).isZero();
    assertThat(send(calls, bytes("3"))).isCompleted();
  }

  @Test
  void onTheaderRepliesMatchTheirCallByHeaderSeqIdAndALateOneIsDropped() throws Exception {
    ClientOptions options =
        ClientOptions.builder().maxFrameSize(100).wireKind(WireKind.HEADER).build();
    PipelinedCalls calls = new PipelinedCalls(PEER, options, timer, link);
    // Every message carries seqid 1, as generated clients sharing a connection may send them.
    CompletableFuture<ByteBuffer> slow =
        calls.exchange(message("a", 1), Duration.ofMillis(50), Runnable::run, null);
    WireHeaders bHeaders = WireHeaders.forCall(null, true);
    CompletableFuture<ByteBuffer> b =
        calls.exchange(message("b", 1), Duration.ofSeconds(5), Runnable::run, bHeaders);
    CompletableFuture<ByteBuffer> c = exchange(calls, message("c", 1));
    calls.onResponse(bytes("C"), 2, Map.of()); // header seqids are 0, 1, 2 in write order
    assertThat(text(c.get())).isEqualTo("C");
    assertThat(b).isNotDone();
    assertThatThrownBy(slow::get)
        .cause()
        .isInstanceOfSatisfying(
            CallTimeoutException.class, e -> assertThat(e.behindTimedOutCall()).isFalse());
    assertThat(calls.abandonedCalls()).isEqualTo(1);
    assertThat(b).isNotDone(); // it waits behind nobody: no timeout borrowed from the slow call
    calls.onResponse(message("a", 1), 0, Map.of()); // late: dropped by its id
    assertThat(calls.abandonedCalls()).isZero();
    assertThat(b).isNotDone();
    calls.onResponse(bytes("B"), 1, Map.of("served-by", "s1"));
    assertThat(text(b.get())).isEqualTo("B");
    assertThat(bHeaders.reply()).containsEntry("served-by", "s1");
    assertThat(calls.pendingCalls()).isZero();
    assertThat(link.closed).isFalse();

    exchange(calls, message("d", 1));
    calls.onResponse(bytes("?"), 99, Map.of());
    assertThat(link.closed).isTrue();
    assertThatThrownBy(() -> exchange(calls, bytes("e")).get())
        .hasMessageContaining("a reply with header seqid 99 matches no call waiting");
  }

  @Test
  void answeredCallsShareOneTimerTaskRatherThanArmingOneEach() throws Exception {
    AtomicInteger scheduled = new AtomicInteger();
    ScheduledThreadPoolExecutor counting =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public java.util.concurrent.ScheduledFuture<?> schedule(
              Runnable task, long delay, TimeUnit unit) {
            scheduled.incrementAndGet();
            return super.schedule(task, delay, unit);
          }
        };
    try {
      PipelinedCalls calls =
          new PipelinedCalls(
              PEER, ClientOptions.builder().maxFrameSize(100).build(), counting, link);
      for (int i = 0; i < 100; i++) {
        CompletableFuture<ByteBuffer> call = exchange(calls, bytes("q"));
        calls.onResponse(bytes("R"));
        assertThat(text(call.get())).isEqualTo("R");
      }
      assertThat(scheduled).as("tasks scheduled for 100 answered calls").hasValue(1);
    } finally {
      counting.shutdownNow();
    }
  }

  @Test
  void aShorterTimeoutAfterALongerOneStillFiresAtItsOwnDeadline() throws Exception {
    PipelinedCalls calls = table(10);
    CompletableFuture<ByteBuffer> patient = exchange(calls, bytes("p"), Duration.ofSeconds(20));
    CompletableFuture<ByteBuffer> hasty = exchange(calls, bytes("h"), Duration.ofMillis(50));
    CompletableFuture<ByteBuffer> middle = exchange(calls, bytes("m"), Duration.ofMillis(400));
    assertThatThrownBy(() -> hasty.get(5, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(CallTimeoutException.class);
    assertThat(middle).as("due later than the first sweep: armed again for it").isNotDone();
    assertThatThrownBy(() -> middle.get(5, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            CallTimeoutException.class, e -> assertThat(e.behindTimedOutCall()).isTrue());
    assertThat(patient).isNotDone();
    calls.onResponse(bytes("P"));
    assertThat(text(patient.get())).isEqualTo("P");
    assertThat(link.closed).isFalse();
  }

  @Test
  void aTimedOutCallFailsAloneAndItsLateReplyIsDropped() throws Exception {
    PipelinedCalls calls = table(10);
    CompletableFuture<ByteBuffer> slow = exchange(calls, bytes("a"), Duration.ofMillis(50));
    CompletableFuture<ByteBuffer> other = exchange(calls, bytes("b"));
    assertThatThrownBy(slow::get)
        .cause()
        .isInstanceOfSatisfying(
            CallTimeoutException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.behindTimedOutCall()).isFalse();
              assertThat(e.getMessage())
                  .isEqualTo(
                      "no response from db1:9090 within callTimeout 50 ms (2 calls were pending)");
            });
    assertThat(calls.isOpen()).isTrue();
    assertThat(link.closed).isFalse();
    assertThat(calls.abandonedCalls()).isEqualTo(1);
    assertThat(calls.pendingCalls()).isEqualTo(2); // the late reply is still owed
    assertThat(other).isNotDone();
    calls.onResponse(bytes("A")); // late: dropped, never handed to the next call
    assertThat(other).isNotDone();
    assertThat(calls.abandonedCalls()).isZero();
    calls.onResponse(bytes("B"));
    assertThat(text(other.get())).isEqualTo("B");
    CompletableFuture<ByteBuffer> next = exchange(calls, bytes("c"));
    calls.onResponse(bytes("C"));
    assertThat(text(next.get())).isEqualTo("C");
    assertThat(calls.pendingCalls()).isZero();
  }

  @Test
  void aCallThatTimesOutBehindATimedOutCallSaysSo() throws Exception {
    PipelinedCalls calls = table(10);
    CompletableFuture<ByteBuffer> slow = exchange(calls, bytes("a"), Duration.ofMillis(30));
    CompletableFuture<ByteBuffer> queued = exchange(calls, bytes("b"), Duration.ofMillis(300));
    assertThatThrownBy(slow::get).hasCauseInstanceOf(CallTimeoutException.class);
    assertThatThrownBy(queued::get)
        .cause()
        .isInstanceOfSatisfying(
            CallTimeoutException.class,
            e -> {
              assertThat(e.behindTimedOutCall()).isTrue();
              assertThat(e.getMessage())
                  .isEqualTo(
                      "no response from db1:9090 within callTimeout 300 ms behind an earlier call"
                          + " that had timed out (2 calls were pending)");
            });
    assertThat(calls.abandonedCalls()).isEqualTo(2);
    calls.onResponse(bytes("A"));
    calls.onResponse(bytes("B"));
    assertThat(calls.abandonedCalls()).isZero();
    assertThat(calls.isOpen()).isTrue();
  }

  @Test
  void whenSeveralCallsAreDueAtOnceTheCallAheadIsTheOneBlamed() throws Exception {
    // The timer task runs late (a busy event loop): both calls are due when it does.
    List<Runnable> timers = new ArrayList<>();
    ScheduledThreadPoolExecutor held =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public java.util.concurrent.ScheduledFuture<?> schedule(
              Runnable task, long delay, TimeUnit unit) {
            timers.add(task);
            return super.schedule(() -> {}, 1, TimeUnit.DAYS);
          }
        };
    try {
      PipelinedCalls calls =
          new PipelinedCalls(PEER, ClientOptions.builder().maxFrameSize(100).build(), held, link);
      CompletableFuture<ByteBuffer> slow = exchange(calls, bytes("a"), Duration.ofMillis(20));
      CompletableFuture<ByteBuffer> queued = exchange(calls, bytes("b"), Duration.ofMillis(20));
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(40);
      while (System.nanoTime() - deadline < 0) {
        Thread.onSpinWait(); // both deadlines pass; the task has not run
      }
      assertThat(timers).as("one task for both calls").hasSize(1);
      timers.get(0).run();
      assertThatThrownBy(slow::get)
          .cause()
          .isInstanceOfSatisfying(
              CallTimeoutException.class, e -> assertThat(e.behindTimedOutCall()).isFalse());
      assertThatThrownBy(queued::get)
          .cause()
          .isInstanceOfSatisfying(
              CallTimeoutException.class, e -> assertThat(e.behindTimedOutCall()).isTrue());
      assertThat(calls.abandonedCalls()).isEqualTo(2);
    } finally {
      held.shutdownNow();
    }
  }

  @Test
  void aCallThatTimesOutUnwrittenLeavesTheOrderAndIsNeverSent() throws Exception {
    PipelinedCalls calls = table(10);
    link.writable = false; // a socket that does not drain
    CompletableFuture<ByteBuffer> stuck = exchange(calls, bytes("a"), Duration.ofMillis(30));
    assertThatThrownBy(stuck::get)
        .cause()
        .isInstanceOfSatisfying(
            CallTimeoutException.class,
            e ->
                assertThat(e.getMessage())
                    .isEqualTo(
                        "no response from db1:9090 within callTimeout 30 ms before it could be"
                            + " written (the connection is not draining) (1 calls were pending)"));
    assertThat(calls.pendingCalls()).isZero();
    assertThat(calls.abandonedCalls()).isZero();
    link.writable = true;
    CompletableFuture<ByteBuffer> next = exchange(calls, bytes("b"));
    assertThat(link.written).extracting(PipelinedCallsTest::text).containsExactly("b");
    calls.onResponse(bytes("B"));
    assertThat(text(next.get())).isEqualTo("B");
  }

  @Test
  void aLateReplyWithAnotherSequenceIdClosesTheConnection() throws Exception {
    PipelinedCalls calls = table(10);
    CompletableFuture<ByteBuffer> slow = exchange(calls, message("echo", 7), Duration.ofMillis(30));
    CompletableFuture<ByteBuffer> other = exchange(calls, message("echo", 8));
    assertThatThrownBy(slow::get).hasCauseInstanceOf(CallTimeoutException.class);
    calls.onResponse(message("echo", 8)); // the reply of the call behind: the order is broken
    assertThat(calls.isOpen()).isFalse();
    assertThat(link.closed).isTrue();
    assertThatThrownBy(other::get)
        .cause()
        .hasMessage(
            "connection to db1:9090 closed with 1 calls pending: the late reply to a timed-out"
                + " call carries seqid 8, not 7: replies are out of order");
  }

  @Test
  void aLateReplyWithItsOwnSequenceIdIsDroppedQuietly() throws Exception {
    PipelinedCalls calls = table(10);
    CompletableFuture<ByteBuffer> slow = exchange(calls, message("echo", 7), Duration.ofMillis(30));
    CompletableFuture<ByteBuffer> other = exchange(calls, message("echo", 8));
    assertThatThrownBy(slow::get).hasCauseInstanceOf(CallTimeoutException.class);
    calls.onResponse(message("echo", 7));
    calls.onResponse(message("echo", 8));
    assertThat(other.get()).isEqualTo(message("echo", 8));
    assertThat(calls.isOpen()).isTrue();
  }

  @Test
  void aConnectionThatOwesALateReplyAndGetsNoneForLateReplyTimeoutClosesAsStuck() throws Exception {
    PipelinedCalls calls = table(10, Duration.ofMillis(100));
    CompletableFuture<ByteBuffer> slow = exchange(calls, bytes("a"), Duration.ofMillis(20));
    CompletableFuture<ByteBuffer> other = exchange(calls, bytes("b"), Duration.ofSeconds(20));
    assertThatThrownBy(slow::get).hasCauseInstanceOf(CallTimeoutException.class);
    assertThatThrownBy(other::get)
        .cause()
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.END_OF_FILE);
              assertThat(e.getMessage())
                  .startsWith("connection to db1:9090 closed with 1 calls pending: no reply for ")
                  .endsWith(" ms while 1 timed-out calls owed theirs (lateReplyTimeout 100 ms)");
            });
    assertThat(link.closed).isTrue();
  }

  @Test
  void aOnewayBeingWrittenWhenTheTableClosesLeavesNoNegativeCount() {
    List<Consumer<Throwable>> held = new ArrayList<>();
    link.holdDone = held::add;
    PipelinedCalls calls = table(10);
    CompletableFuture<Void> oneway = send(calls, bytes("o"));
    assertThat(held).hasSize(1); // handed to the socket, not yet written
    calls.close("closed by the peer", null);
    held.get(0).accept(null);
    assertThat(calls.pendingCalls()).isZero();
    assertThat(oneway).isCompleted();
  }

  @Test
  void aCloseFailsEveryWaitingCallOnceNamingThePeerAndTheCount() throws Exception {
    PipelinedCalls calls = table(10);
    List<CompletableFuture<ByteBuffer>> all = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      all.add(exchange(calls, bytes("x")));
    }
    int[] closes = new int[1];
    calls.onClose(() -> closes[0]++);
    calls.close("closed by the peer", null);
    calls.close("again", null);
    for (CompletableFuture<ByteBuffer> f : all) {
      assertThatThrownBy(f::get)
          .cause()
          .isInstanceOfSatisfying(
              TTransportException.class,
              e -> {
                assertThat(e.getType()).isEqualTo(TTransportException.END_OF_FILE);
                assertThat(e.getMessage())
                    .isEqualTo(
                        "connection to db1:9090 closed with 3 calls pending: closed by the peer");
              });
    }
    assertThat(closes[0]).isEqualTo(1);
  }

  @Test
  void aResponseOverMaxFrameSizeFailsTheCallsWithCorruptedData() {
    PipelinedCalls calls = table(10);
    CompletableFuture<ByteBuffer> a = exchange(calls, bytes("a"));
    FrameSizeException tooLarge = new FrameSizeException(5000, 100, PEER);
    calls.close(ClientErrors.describe(tooLarge), tooLarge);
    assertThatThrownBy(a::get)
        .cause()
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "connection to db1:9090 closed with 1 calls pending: frame length 5000"
                          + " exceeds maxFrameSize 100");
            });
  }

  @Test
  void aRequestOverMaxFrameSizeFailsAloneBeforeAnythingIsWritten() {
    PipelinedCalls calls = table(10);
    assertThatThrownBy(() -> exchange(calls, ByteBuffer.allocate(101)).get())
        .hasCauseInstanceOf(FrameSizeException.class)
        .hasMessageContaining("exceeds maxFrameSize 100");
    assertThat(link.written).isEmpty();
    assertThat(calls.isOpen()).isTrue();
  }

  @Test
  void aResponseWithNoCallWaitingClosesTheTable() {
    PipelinedCalls calls = table(10);
    calls.onResponse(bytes("?"));
    assertThat(calls.isOpen()).isFalse();
    assertThat(link.closed).isTrue();
  }

  @Test
  void aWriteThatBlocksStallsNeitherOtherCallersNorResponses() throws Exception {
    CountDownLatch inWrite = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    link.onWrite =
        payload -> {
          if (text(payload).equals("slow")) {
            inWrite.countDown();
            await(release);
          }
        };
    PipelinedCalls calls = table(10);
    CompletableFuture<CompletableFuture<ByteBuffer>> slow = new CompletableFuture<>();
    Thread writer = new Thread(() -> slow.complete(exchange(calls, bytes("slow"))));
    writer.start();
    assertThat(inWrite.await(5, TimeUnit.SECONDS)).isTrue();
    // The drainer is inside a socket write: another caller queues and returns, and a response
    // read on the IO thread completes its call, without waiting for that write.
    CompletableFuture<ByteBuffer> next = exchange(calls, bytes("next"));
    assertThat(next).isNotDone();
    calls.onResponse(bytes("S"));
    release.countDown();
    writer.join(5000);
    assertThat(text(slow.get().get())).isEqualTo("S");
    calls.onResponse(bytes("N"));
    assertThat(text(next.get())).isEqualTo("N");
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes into a list, at once, on the calling thread. */
  private static final class MemoryLink implements CallLink {
    final List<ByteBuffer> written = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile boolean writable = true;
    volatile boolean closed;
    volatile int flushes;
    volatile Consumer<ByteBuffer> onWrite = b -> {};
    volatile Consumer<Consumer<Throwable>> holdDone; // null: a write is done at once

    @Override
    public void execute(Runnable drain) {
      drain.run();
    }

    @Override
    public void write(ByteBuffer payload, boolean oneway, Consumer<Throwable> done) {
      onWrite.accept(payload);
      written.add(payload);
      if (holdDone != null) {
        holdDone.accept(done);
      } else {
        done.accept(null);
      }
    }

    @Override
    public void flush() {
      flushes++;
    }

    @Override
    public boolean writable() {
      return writable;
    }

    @Override
    public void closeConnection() {
      closed = true;
    }
  }
}
