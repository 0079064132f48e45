package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.MiniService.Reply;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBaseAsyncProcessor;
import org.apache.thrift.TBaseProcessor;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(20)
class ProcessorInvokerTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();
  private static final int MAX = Framing.DEFAULT_MAX_FRAME_SIZE;

  private static final ExecutorService ASYNC =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "mini-async-handler"));

  @AfterAll
  static void stopExecutor() {
    ASYNC.shutdownNow();
  }

  private static ProcessorInvoker invoker(
      String kind, TProtocolFactory in, TProtocolFactory out, int max) {
    return kind.equals("sync")
        ? ProcessorInvoker.of(new MiniService.Sync(), in, out, max)
        : ProcessorInvoker.ofAsync(new MiniService.Async(ASYNC), in, out, max);
  }

  private static ProcessorInvoker invoker(String kind) {
    return invoker(kind, BINARY, BINARY, MAX);
  }

  private static ByteBuffer await(CompletableFuture<ByteBuffer> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void twoWayCallGetsItsReplyInOneFrame(String kind) throws Exception {
    ProcessorInvoker invoker = invoker(kind);
    assertThat(invoker.isAsync()).isEqualTo(kind.equals("async"));
    ByteBuffer request = MiniService.call(BINARY, "upper", 17, "hello");
    ByteBuffer frame = await(invoker.invoke(request));

    Reply reply = MiniService.decode(BINARY, frame);
    assertThat(reply.exception()).isNull();
    assertThat(reply.header().type).isEqualTo(TMessageType.REPLY);
    assertThat(reply.header().name).isEqualTo("upper");
    assertThat(reply.header().seqid).isEqualTo(17);
    assertThat(reply.success()).isEqualTo("HELLO");
  }

  /**
   * A thread reuses its transports and protocols from one synchronous call to the next: replies of
   * different sizes, one after a failed call, and a call started from inside another call's
   * completion on the same thread (a completion that writes and then dispatches a waiting request)
   * must each get their own, whole reply.
   */
  @Test
  void callsOnOneThreadEachGetTheirOwnReply() throws Exception {
    ProcessorInvoker invoker = invoker("sync", COMPACT, COMPACT, MAX);
    List<String> replies = new ArrayList<>();
    String[] texts = {"a", "b".repeat(5000), "c", "d".repeat(40), ""};
    for (int i = 0; i < texts.length; i++) {
      replies.add(
          MiniService.decode(
                  COMPACT, await(invoker.invoke(MiniService.call(COMPACT, "echo", i, texts[i]))))
              .success());
    }
    assertThat(replies).containsExactly(texts);

    Reply failed =
        MiniService.decode(
            COMPACT, await(invoker.invoke(MiniService.call(COMPACT, "throw", 9, "x"))));
    assertThat(failed.exception().getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(
            MiniService.decode(
                    COMPACT, await(invoker.invoke(MiniService.call(COMPACT, "upper", 10, "after"))))
                .success())
        .isEqualTo("AFTER");

    ByteBuffer[] inner = new ByteBuffer[1];
    CompletableFuture<ByteBuffer> outer = new CompletableFuture<>();
    invoker.invoke(
        MiniService.call(COMPACT, "echo", 11, "outer"),
        new ProcessorInvoker.Completion() {
          @Override
          public void replied(ByteBuffer frame, boolean failedCall) {
            // Still inside the outer call on this thread: the next call starts here.
            try {
              inner[0] = await(invoker.invoke(MiniService.call(COMPACT, "upper", 12, "inner")));
            } catch (Exception e) {
              outer.completeExceptionally(e);
              return;
            }
            outer.complete(frame);
          }

          @Override
          public void unreadable(Throwable cause) {
            outer.completeExceptionally(cause);
          }
        });
    Reply outerReply = MiniService.decode(COMPACT, await(outer));
    assertThat(outerReply.header().seqid).isEqualTo(11);
    assertThat(outerReply.success()).isEqualTo("outer");
    assertThat(MiniService.decode(COMPACT, inner[0]).success()).isEqualTo("INNER");
  }

  @Test
  void syncProcessorCompletesOnTheCallingThread() throws Exception {
    MiniService.Sync processor = new MiniService.Sync();
    ProcessorInvoker invoker = ProcessorInvoker.of(processor, BINARY, BINARY, MAX);
    CompletableFuture<ByteBuffer> f = invoker.invoke(MiniService.call(BINARY, "echo", 1, "x"));
    assertThat(f).isDone();
    assertThat(processor.lastThread).isSameAs(Thread.currentThread());
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void manyCallsThroughOneInvokerStayIndependent(String kind) throws Exception {
    ProcessorInvoker invoker = invoker(kind);
    CompletableFuture<?>[] futures = new CompletableFuture<?>[200];
    for (int i = 0; i < futures.length; i++) {
      futures[i] = invoker.invoke(MiniService.call(BINARY, "echo", i, "call-" + i));
    }
    for (int i = 0; i < futures.length; i++) {
      @SuppressWarnings("unchecked")
      Reply r = MiniService.decode(BINARY, await((CompletableFuture<ByteBuffer>) futures[i]));
      assertThat(r.header().seqid).isEqualTo(i);
      assertThat(r.success()).isEqualTo("call-" + i);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void onewayCallProducesNoResponse(String kind) throws Exception {
    ByteBuffer request = MiniService.request(BINARY, "oneway", TMessageType.ONEWAY, 3, "fire");
    assertThat(await(invoker(kind).invoke(request))).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"throw", "error", "overflow"})
  void undeclaredThrowableFromSyncProcessorBecomesInternalError(String method) throws Exception {
    assertInternalError(invoker("sync"), method);
  }

  @ParameterizedTest
  @ValueSource(strings = {"throw", "error", "overflow"})
  void undeclaredThrowableFromAsyncProcessorBecomesInternalError(String method) throws Exception {
    assertInternalError(invoker("async"), method);
  }

  private static void assertInternalError(ProcessorInvoker invoker, String method)
      throws Exception {
    ByteBuffer frame = await(invoker.invoke(MiniService.call(BINARY, method, 99, "boom")));
    Reply reply = MiniService.decode(BINARY, frame);
    assertThat(reply.header().type).isEqualTo(TMessageType.EXCEPTION);
    assertThat(reply.header().name).isEqualTo(method);
    assertThat(reply.header().seqid).isEqualTo(99);
    assertThat(reply.exception().getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(reply.exception().getMessage()).contains(method);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void onewayCallWhoseHandlerThrowsStillProducesNoResponse(String kind) throws Exception {
    ByteBuffer request = MiniService.request(BINARY, "error", TMessageType.ONEWAY, 5, "x");
    assertThat(await(invoker(kind).invoke(request))).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void truncatedMessageGetsProtocolErrorWithItsSeqid(String kind) throws Exception {
    ByteBuffer whole = MiniService.call(BINARY, "echo", 1234, "a string that will be cut short");
    ByteBuffer truncated = whole.duplicate();
    truncated.limit(truncated.limit() - 10);

    Reply reply = MiniService.decode(BINARY, await(invoker(kind).invoke(truncated.slice())));
    assertThat(reply.header().type).isEqualTo(TMessageType.EXCEPTION);
    assertThat(reply.header().seqid).isEqualTo(1234);
    assertThat(reply.exception().getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
    assertThat(reply.exception().getMessage()).contains("echo");
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void unreadableHeaderFailsTheFuture(String kind) throws Exception {
    ProcessorInvoker invoker = invoker(kind);
    for (byte[] garbage :
        new byte[][] {
          "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
          {1, 2, 3},
          {(byte) 0x80, 0x01, 0x00, 0x01, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff},
        }) {
      CompletableFuture<ByteBuffer> f = invoker.invoke(ByteBuffer.wrap(garbage));
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TException.class);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void inputAndOutputProtocolsMayDiffer(String kind) throws Exception {
    ProcessorInvoker invoker = invoker(kind, COMPACT, BINARY, MAX);
    ByteBuffer frame = await(invoker.invoke(MiniService.call(COMPACT, "upper", 8, "mixed")));
    Reply reply = MiniService.decode(BINARY, frame);
    assertThat(reply.success()).isEqualTo("MIXED");
    assertThat(reply.header().seqid).isEqualTo(8);
    // The binary reply is not readable as compact: the output factory was really used.
    assertThatThrownBy(() -> MiniService.decode(COMPACT, frame)).isInstanceOf(TException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void unknownMethodGetsUnknownMethodReply(String kind) throws Exception {
    Reply reply =
        MiniService.decode(
            BINARY, await(invoker(kind).invoke(MiniService.call(BINARY, "nope", 77, "x"))));
    assertThat(reply.header().type).isEqualTo(TMessageType.EXCEPTION);
    assertThat(reply.header().seqid).isEqualTo(77);
    assertThat(reply.exception().getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD);
    assertThat(reply.exception().getMessage()).contains("nope");
  }

  @Test
  void libthriftBaseProcessorsAnswerUnknownMethods() throws Exception {
    ProcessorInvoker sync =
        ProcessorInvoker.of(
            new TBaseProcessor<Object>(new Object(), Map.of()) {}, BINARY, BINARY, MAX);
    ProcessorInvoker async =
        ProcessorInvoker.ofAsync(
            new TBaseAsyncProcessor<>(new Object(), Map.of()), BINARY, BINARY, MAX);
    for (ProcessorInvoker invoker : new ProcessorInvoker[] {sync, async}) {
      Reply reply =
          MiniService.decode(
              BINARY, await(invoker.invoke(MiniService.call(BINARY, "missing", 4, "x"))));
      assertThat(reply.header().seqid).isEqualTo(4);
      assertThat(reply.exception().getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD);
    }
  }

  /**
   * A processor may write a reply to a oneway request (libthrift's sync processors do for an
   * unknown method or malformed arguments); nobody awaits it, so none is produced.
   */
  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void onewayRequestGetsNoReplyEvenWhenTheProcessorWritesOne(String kind) throws Exception {
    ByteBuffer unknownOneway = MiniService.request(BINARY, "nope", TMessageType.ONEWAY, 9, "x");
    assertThat(await(invoker(kind).invoke(unknownOneway))).isNull();
    ProcessorInvoker stock =
        ProcessorInvoker.of(
            new TBaseProcessor<Object>(new Object(), Map.of()) {}, BINARY, BINARY, MAX);
    assertThat(await(stock.invoke(unknownOneway.duplicate()))).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void responseAboveMaxFrameSizeIsAnInternalErrorNotAMalformedRequest(String kind)
      throws Exception {
    ProcessorInvoker invoker = invoker(kind, BINARY, BINARY, 4096);
    Reply reply =
        MiniService.decode(
            BINARY, await(invoker.invoke(MiniService.call(BINARY, "big", 6, "0123456789"))));
    assertThat(reply.header().seqid).isEqualTo(6);
    assertThat(reply.exception().getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(reply.exception().getMessage()).contains("big").doesNotContain("Malformed");
    // The invoker still serves calls that fit.
    assertThat(
            MiniService.decode(
                    BINARY, await(invoker.invoke(MiniService.call(BINARY, "echo", 7, "ok"))))
                .success())
        .isEqualTo("ok");
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact", "json"})
  void aMessageTypeOtherThanCallOrOnewayIsAnsweredWithoutRunningTheHandler(String protocol)
      throws Exception {
    TProtocolFactory f =
        protocol.equals("binary")
            ? BINARY
            : protocol.equals("compact")
                ? COMPACT
                : new org.apache.thrift.protocol.TJSONProtocol.Factory();
    MiniService.Sync processor = new MiniService.Sync();
    ProcessorInvoker invoker = ProcessorInvoker.of(processor, f, f, MAX);
    for (byte type : new byte[] {TMessageType.REPLY, TMessageType.EXCEPTION, 0, 5}) {
      Reply reply =
          MiniService.decode(
              f, await(invoker.invoke(MiniService.request(f, "upper", type, 9, "x"))));
      assertThat(reply.header().seqid).isEqualTo(9);
      assertThat(reply.exception().getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
      assertThat(reply.exception().getMessage()).contains("message type " + type);
    }
    assertThat(processor.lastThread).as("the handler never ran").isNull();
    Reply ok = MiniService.decode(f, await(invoker.invoke(MiniService.call(f, "upper", 10, "x"))));
    assertThat(ok.success()).isEqualTo("X");
  }

  @Test
  void requestAboveMaxFrameSizeIsRefused() throws Exception {
    ProcessorInvoker invoker = invoker("sync", BINARY, BINARY, 64);
    CompletableFuture<ByteBuffer> f =
        invoker.invoke(MiniService.call(BINARY, "echo", 1, "x".repeat(100)));
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void aPayloadAboveMaxFrameSizeFailsWithFrameSizeExceptionAndMaxIsAccepted(String kind)
      throws Exception {
    ByteBuffer request = MiniService.call(BINARY, "echo", 3, "x".repeat(100));
    int max = request.remaining();
    assertThat(
            MiniService.decode(BINARY, await(invoker(kind, BINARY, BINARY, max).invoke(request)))
                .success())
        .isEqualTo("x".repeat(100));

    assertThatThrownBy(() -> await(invoker(kind, BINARY, BINARY, max - 1).invoke(request)))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            FrameSizeException.class,
            e -> {
              assertThat(e.length()).isEqualTo(max);
              assertThat(e.maxFrameSize()).isEqualTo(max - 1);
            });
  }

  @Test
  void constructionValidatesItsArguments() {
    assertThatThrownBy(() -> ProcessorInvoker.of(new MiniService.Sync(), BINARY, BINARY, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFrameSize: 0 (expected: > 0)");
    assertThatThrownBy(
            () -> ProcessorInvoker.of((org.apache.thrift.TProcessor) null, BINARY, BINARY, MAX))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("processor");
    assertThatThrownBy(() -> ProcessorInvoker.of(new MiniService.Sync(), null, BINARY, MAX))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("inputProtocolFactory");
    assertThatThrownBy(
            () -> ProcessorInvoker.ofAsync(new MiniService.Async(ASYNC), BINARY, null, MAX))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("outputProtocolFactory");
  }

  /** Issue 38, item 7: a request in another protocol is answered in its own, saying why. */
  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void aRequestInAnotherProtocolIsAnsweredInItsOwnNamingBoth(String kind) throws Exception {
    TProtocolFactory json = new org.apache.thrift.protocol.TJSONProtocol.Factory();
    TProtocolFactory[][] cases = {{BINARY, COMPACT}, {COMPACT, BINARY}, {BINARY, json}};
    String[][] names = {
      {"TBinaryProtocol", "TCompactProtocol"},
      {"TCompactProtocol", "TBinaryProtocol"},
      {"TBinaryProtocol", "TJSONProtocol"}
    };
    for (int i = 0; i < cases.length; i++) {
      TProtocolFactory server = cases[i][0];
      TProtocolFactory client = cases[i][1];
      ProcessorInvoker invoker = invoker(kind, server, server, MAX);
      ByteBuffer frame = await(invoker.invoke(MiniService.call(client, "upper", 5, "hi")));
      Reply reply = MiniService.decode(client, frame);
      assertThat(reply.header().seqid).isEqualTo(5);
      assertThat(reply.exception().getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
      assertThat(reply.exception().getMessage())
          .startsWith("request upper refused: the request is in " + names[i][1] + " (first bytes ")
          .endsWith("this server reads " + names[i][0] + " (ServerBuilder.protocol)");
    }
  }
}
