package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.TooManyPendingCallsException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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

  private PipelinedCalls table(int maxPendingCalls) {
    return new PipelinedCalls(
        PEER, 100, maxPendingCalls, Duration.ofSeconds(5), timer, Runnable::run, link);
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
  }

  private static String text(ByteBuffer b) {
    return StandardCharsets.US_ASCII.decode(b.duplicate()).toString();
  }

  @Test
  void responsesCompleteCallsFirstInFirstOutAndOneFlushCoversABatch() throws Exception {
    PipelinedCalls calls = table(10);
    link.writable = false; // hold the drain so that three calls leave in one batch
    CompletableFuture<ByteBuffer> a = calls.exchange(bytes("a"));
    CompletableFuture<ByteBuffer> b = calls.exchange(bytes("b"));
    CompletableFuture<Void> c = calls.send(bytes("c"));
    CompletableFuture<ByteBuffer> d = calls.exchange(bytes("d"));
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
    calls.exchange(bytes("a"));
    calls.exchange(bytes("b"));
    assertThatThrownBy(() -> calls.exchange(bytes("c")).get())
        .hasCauseInstanceOf(TooManyPendingCallsException.class)
        .hasMessageContaining("pending calls: 2 (limit: 2) to " + PEER);
    calls.onResponse(bytes("A"));
    CompletableFuture<ByteBuffer> c = calls.exchange(bytes("c"));
    calls.onResponse(bytes("B"));
    calls.onResponse(bytes("C"));
    assertThat(text(c.get())).isEqualTo("C");
    assertThat(link.closed).isFalse();
  }

  @Test
  void onewaysCountAgainstTheBoundUntilWritten() throws Exception {
    PipelinedCalls calls = table(2);
    link.writable = false; // a socket that does not drain
    CompletableFuture<Void> first = calls.send(bytes("1"));
    CompletableFuture<Void> second = calls.send(bytes("2"));
    assertThatThrownBy(() -> calls.send(bytes("3")).get())
        .hasCauseInstanceOf(TooManyPendingCallsException.class);
    assertThat(link.written).isEmpty();
    link.writable = true;
    calls.writable();
    assertThat(first).isCompleted();
    assertThat(second).isCompleted();
    assertThat(calls.pendingCalls()).isZero();
    assertThat(calls.send(bytes("3"))).isCompleted();
  }

  @Test
  void aTimedOutCallClosesTheTableAndFailsTheOthersWithOneMessage() throws Exception {
    PipelinedCalls calls = table(10);
    CompletableFuture<ByteBuffer> slow = calls.exchange(bytes("a"), Duration.ofMillis(50));
    CompletableFuture<ByteBuffer> other = calls.exchange(bytes("b"));
    assertThatThrownBy(slow::get)
        .cause()
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "call to db1:9090 timed out after 50 ms (2 calls were pending); channel"
                          + " closed");
            });
    assertThatThrownBy(other::get)
        .cause()
        .hasMessage(
            "connection to db1:9090 closed with 1 calls pending: a call timed out after 50 ms");
    assertThat(link.closed).isTrue();
    assertThat(calls.isOpen()).isFalse();
    calls.onResponse(bytes("late")); // dropped: it answers a call that has failed
    assertThatThrownBy(() -> calls.exchange(bytes("c")).get())
        .cause()
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "channel to db1:9090 is closed (a call timed out after 50 ms); call not"
                          + " sent");
            });
  }

  @Test
  void aCloseFailsEveryWaitingCallOnceNamingThePeerAndTheCount() throws Exception {
    PipelinedCalls calls = table(10);
    List<CompletableFuture<ByteBuffer>> all = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      all.add(calls.exchange(bytes("x")));
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
    CompletableFuture<ByteBuffer> a = calls.exchange(bytes("a"));
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
    assertThatThrownBy(() -> calls.exchange(ByteBuffer.allocate(101)).get())
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
    Thread writer = new Thread(() -> slow.complete(calls.exchange(bytes("slow"))));
    writer.start();
    assertThat(inWrite.await(5, TimeUnit.SECONDS)).isTrue();
    // The drainer is inside a socket write: another caller queues and returns, and a response
    // read on the IO thread completes its call, without waiting for that write.
    CompletableFuture<ByteBuffer> next = calls.exchange(bytes("next"));
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
  private static final class MemoryLink implements PipelinedCalls.Link {
    final List<ByteBuffer> written = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile boolean writable = true;
    volatile boolean closed;
    volatile int flushes;
    volatile Consumer<ByteBuffer> onWrite = b -> {};

    @Override
    public void execute(Runnable drain) {
      drain.run();
    }

    @Override
    public void write(ByteBuffer payload, Consumer<Throwable> done) {
      onWrite.accept(payload);
      written.add(payload);
      done.accept(null);
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
