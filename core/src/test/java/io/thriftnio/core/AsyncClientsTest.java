package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.thriftnio.core.util.internal.Framing;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The async bridge's own guarantees, over an in-memory channel serving {@link MiniService}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AsyncClientsTest {

  private static final List<TProtocolFactory> PROTOCOLS =
      List.of(
          new TBinaryProtocol.Factory(),
          new TCompactProtocol.Factory(),
          new TJSONProtocol.Factory());

  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "async-clients-test"));

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("completed normally: " + f.join());
  }

  @Test
  void requestsCarryDistinctSequenceIdsOnTheWire() throws Exception {
    for (TProtocolFactory protocol : PROTOCOLS) {
      MemoryChannel channel = new MemoryChannel(protocol, Framing.DEFAULT_MAX_FRAME_SIZE);
      AsyncCaller<MiniClient> caller =
          new AsyncCaller<>(channel, MiniClient::new, protocol, executor);
      assertThat(await(caller.call(c -> c.send_echo("a"), MiniClient::recv_echo))).isEqualTo("a");
      assertThat(await(caller.callOneway(c -> c.send_oneway("b")))).isNull();
      assertThat(await(caller.call(c -> c.send_echo("c"), MiniClient::recv_echo))).isEqualTo("c");

      assertThat(channel.sent)
          .as("%s", protocol.getClass().getName())
          .extracting(m -> m.name + "#" + m.seqid)
          .containsExactly("echo#1", "oneway#2", "echo#3");
    }
  }

  @Test
  void aCallerOverAnotherChannelSharesTheSequence() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    MemoryChannel channel = new MemoryChannel(protocol, Framing.DEFAULT_MAX_FRAME_SIZE);
    MemoryChannel other = new MemoryChannel(protocol, Framing.DEFAULT_MAX_FRAME_SIZE);
    AsyncCaller<MiniClient> caller =
        new AsyncCaller<>(channel, MiniClient::new, protocol, executor);
    AsyncCaller<MiniClient> over = caller.over(other);
    assertThat(await(caller.call(c -> c.send_echo("a"), MiniClient::recv_echo))).isEqualTo("a");
    assertThat(await(over.call(c -> c.send_echo("b"), MiniClient::recv_echo))).isEqualTo("b");
    assertThat(await(over.callOneway(c -> c.send_oneway("c")))).isNull();
    assertThat(await(caller.call(c -> c.send_echo("d"), MiniClient::recv_echo))).isEqualTo("d");

    assertThat(channel.sent)
        .extracting(m -> m.name + "#" + m.seqid)
        .containsExactly("echo#1", "echo#4");
    assertThat(other.sent)
        .as("sent on the other channel, numbered from the same sequence")
        .extracting(m -> m.name + "#" + m.seqid)
        .containsExactly("echo#2", "oneway#3");
  }

  @Test
  void aReplyToAnotherCallFailsWithBadSequenceId() throws Exception {
    for (TProtocolFactory protocol : PROTOCOLS) {
      MemoryChannel channel = new MemoryChannel(protocol, Framing.DEFAULT_MAX_FRAME_SIZE);
      AsyncCaller<MiniClient> caller =
          new AsyncCaller<>(channel, MiniClient::new, protocol, executor);
      channel.holdReplies();
      CompletableFuture<String> first =
          caller.call(c -> c.send_echo("first"), MiniClient::recv_echo);
      CompletableFuture<String> second =
          caller.call(c -> c.send_echo("second"), MiniClient::recv_echo);
      channel.releaseSwapped();

      assertThat(failure(first))
          .as("%s", protocol.getClass().getName())
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.BAD_SEQUENCE_ID))
          .hasMessageStartingWith("echo failed: out of sequence response from memory")
          .hasMessageEndingWith(": expected seqid 1, got 2 from method echo");
      assertThat(failure(second))
          .isInstanceOf(TApplicationException.class)
          .hasMessageContaining("expected seqid 2, got 1");

      // In order again, the next call succeeds.
      assertThat(await(caller.call(c -> c.send_echo("third"), MiniClient::recv_echo)))
          .isEqualTo("third");
    }
  }

  @Test
  void aMessageAboveLibthriftsDefaultFrameSizeGoesThroughAChannelThatAllowsIt() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    int limit = 20 * 1024 * 1024;
    MemoryChannel channel = new MemoryChannel(protocol, limit);
    AsyncCaller<MiniClient> caller =
        new AsyncCaller<>(channel, MiniClient::new, protocol, executor);
    String text = "x".repeat(Framing.DEFAULT_MAX_FRAME_SIZE + 1024); // ~17 MB, past 16,384,000

    String echoed = await(caller.call(c -> c.send_echo(text), MiniClient::recv_echo));

    assertThat(echoed.length()).isEqualTo(text.length());
    assertThat(echoed).isEqualTo(text);
  }

  @Test
  void aRejectingExecutorStillCompletesEveryFuture() throws Exception {
    TProtocolFactory protocol = new TCompactProtocol.Factory();
    MemoryChannel channel = new MemoryChannel(protocol, Framing.DEFAULT_MAX_FRAME_SIZE);
    ExecutorService shutDown = Executors.newSingleThreadExecutor();
    shutDown.shutdown();
    AsyncCaller<MiniClient> caller =
        new AsyncCaller<>(channel, MiniClient::new, protocol, shutDown);

    assertThat(await(caller.call(c -> c.send_echo("hi"), MiniClient::recv_echo))).isEqualTo("hi");
    assertThat(await(caller.callOneway(c -> c.send_oneway("fire")))).isNull();

    TException encode = new TException("cannot encode");
    AtomicReference<CompletableFuture<String>> failed = new AtomicReference<>();
    assertThatCode(
            () ->
                failed.set(
                    caller.call(
                        c -> {
                          throw encode;
                        },
                        MiniClient::recv_echo)))
        .doesNotThrowAnyException();
    assertThat(failure(failed.get())).isSameAs(encode);

    MiniClient.AsyncIface iface =
        AsyncClients.asyncIface(
            MiniClient.AsyncIface.class, channel, MiniClient::new, protocol, shutDown);
    CompletableFuture<String> echoed = new CompletableFuture<>();
    iface.echo("proxied", callback(echoed));
    assertThat(await(echoed)).isEqualTo("proxied");
    CompletableFuture<Void> fired = new CompletableFuture<>();
    iface.oneway("fire", callback(fired));
    assertThat(await(fired)).isNull();
  }

  @Test
  void theGeneratedClientStillSeesTheSequenceIdItWrote() throws Exception {
    // recv_x compares the reply's seqid with its own (1 for a fresh client): the bridge must hand
    // back 1 even when the wire carried another number.
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    MemoryChannel channel = new MemoryChannel(protocol, Framing.DEFAULT_MAX_FRAME_SIZE);
    AsyncCaller<MiniClient> caller =
        new AsyncCaller<>(channel, MiniClient::new, protocol, executor);
    for (int i = 0; i < 5; i++) {
      String text = "call " + i;
      assertThat(await(caller.call(c -> c.send_echo(text), MiniClient::recv_echo))).isEqualTo(text);
    }
    assertThat(channel.sent).extracting(m -> m.seqid).containsExactly(1, 2, 3, 4, 5);
    assertThat(channel.sent).extracting(m -> m.type).containsOnly(TMessageType.CALL);
    // An EXCEPTION reply to the right call is still the application's exception.
    CompletableFuture<String> unknown =
        caller.call(
            c -> {
              c.getOutputProtocol().writeMessageBegin(new TMessage("nope", TMessageType.CALL, 1));
              c.getOutputProtocol().writeStructBegin(new org.apache.thrift.protocol.TStruct("a"));
              c.getOutputProtocol().writeFieldStop();
              c.getOutputProtocol().writeStructEnd();
              c.getOutputProtocol().writeMessageEnd();
            },
            MiniClient::recv_echo);
    assertThat(failure(unknown))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD));
  }

  private static <T> AsyncMethodCallback<T> callback(CompletableFuture<T> future) {
    return new AsyncMethodCallback<>() {
      @Override
      public void onComplete(T response) {
        future.complete(response);
      }

      @Override
      public void onError(Exception exception) {
        future.completeExceptionally(exception);
      }
    };
  }
}
