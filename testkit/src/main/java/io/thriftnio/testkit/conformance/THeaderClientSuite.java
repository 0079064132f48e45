package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.HeaderScope;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * THeader clients ({@code ClientOptions.wireKind(HEADER)}) of one transport: the channel and the
 * sync transport against this library's THeader server (binary and compact, request headers and
 * {@code client_timeout} read by the server, a JSON message refused before it is sent), and the
 * channel against a raw THeader server written here that answers out of order with info headers
 * (each call completes with its own reply; the reply's headers reach {@code afterCall} and a {@link
 * HeaderScope}); an interceptor's {@code attach} around a future's dependent stage. A transport
 * runs it through a subclass that supplies its client resources and a server builder.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class THeaderClientSuite {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();
  private static final ClientOptions HEADER =
      ClientOptions.builder().wireKind(WireKind.HEADER).callTimeout(Duration.ofSeconds(20)).build();

  /** The resources whose clients are under test; shared, not closed by the suite. */
  protected abstract ClientIo resources();

  /** A fresh builder of a server of the same transport. */
  protected abstract ServerBuilder<?> newServerBuilder();

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeEverything() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    open.add(c);
    return c;
  }

  /** A server serving THeader (and framed) whose interceptor records each call's headers. */
  private InetSocketAddress server(List<Map<String, String>> seen) throws IOException {
    ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            seen.add(context.headers());
          }
        };
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .wireKinds(WireKind.FRAMED, WireKind.HEADER, WireKind.HTTP)
            .interceptors(List.of(recorder))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    closeLater(server::close);
    return server.localAddress();
  }

  private static ByteBuffer echoRequest(TProtocolFactory protocol, String text, int seqId)
      throws TException {
    TMemoryBuffer out = new TMemoryBuffer(64);
    BenchService.Client client = new BenchService.Client(protocol.getProtocol(out));
    client
        .getOutputProtocol()
        .writeMessageBegin(
            new org.apache.thrift.protocol.TMessage(
                "echo", org.apache.thrift.protocol.TMessageType.CALL, seqId));
    new BenchService.echo_args(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)))
        .write(client.getOutputProtocol());
    client.getOutputProtocol().writeMessageEnd();
    return ByteBuffer.wrap(out.getArray(), 0, out.length());
  }

  private static String echoReply(TProtocolFactory protocol, ByteBuffer reply) throws TException {
    byte[] bytes = new byte[reply.remaining()];
    reply.duplicate().get(bytes);
    TMemoryBuffer in = new TMemoryBuffer(bytes.length);
    in.write(bytes);
    org.apache.thrift.protocol.TProtocol p = protocol.getProtocol(in);
    p.readMessageBegin(); // its seqid is the request's: a generated client's own check
    BenchService.echo_result result = new BenchService.echo_result();
    result.read(p);
    return new String(result.getSuccess(), StandardCharsets.UTF_8);
  }

  @Test
  void channelCallsInBinaryAndCompactOnOneConnection() throws Exception {
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    ThriftChannel channel = closeLater(resources().openChannel(server(seen), HEADER));
    CompletableFuture<ByteBuffer> binary = channel.exchange(echoRequest(BINARY, "bin", 1));
    CompletableFuture<ByteBuffer> compact = channel.exchange(echoRequest(COMPACT, "cpt", 1));
    assertThat(echoReply(BINARY, binary.get(10, TimeUnit.SECONDS))).isEqualTo("bin");
    assertThat(echoReply(COMPACT, compact.get(10, TimeUnit.SECONDS))).isEqualTo("cpt");
    assertThat(seen).hasSize(2);
    long timeout = Long.parseLong(seen.get(0).get(ServerCallContext.CLIENT_TIMEOUT_HEADER));
    assertThat(timeout).isBetween(1L, HEADER.callTimeout().toMillis());
  }

  @Test
  void syncTransportCallsAndSendsTheHeadersOfAScope() throws Exception {
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    InetSocketAddress address = server(seen);
    for (TProtocolFactory protocol : List.of(BINARY, COMPACT)) {
      TTransport transport = closeLater(resources().openTransport(address, HEADER));
      BenchService.Client client = new BenchService.Client(protocol.getProtocol(transport));
      try (HeaderScope scope = HeaderScope.open(Map.of("tenant", "acme"))) {
        assertThat(client.echo(ByteBuffer.wrap(new byte[] {1, 2, 3})))
            .isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(scope.requestHeaders()).containsEntry("tenant", "acme");
      }
      assertThat(client.echo(ByteBuffer.wrap(new byte[] {4})))
          .isEqualTo(ByteBuffer.wrap(new byte[] {4}));
    }
    assertThat(seen).hasSize(4);
    assertThat(seen.get(0))
        .containsEntry("tenant", "acme")
        .containsKey(ServerCallContext.CLIENT_TIMEOUT_HEADER);
    assertThat(seen.get(1))
        .doesNotContainKey("tenant")
        .containsKey(ServerCallContext.CLIENT_TIMEOUT_HEADER);
    assertThat(seen.get(2)).containsEntry("tenant", "acme");
  }

  @Test
  void interceptorRequestHeadersReachTheServer() throws Exception {
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    ClientInterceptor tagging =
        new ClientInterceptor() {
          @Override
          public void beforeCall(ClientCallContext context) {
            context.setRequestHeader("trace-id", "t-" + context.seqId());
          }
        };
    ThriftChannel channel =
        closeLater(
            resources()
                .openChannel(
                    server(seen), HEADER.toBuilder().interceptors(List.of(tagging)).build()));
    ByteBuffer reply;
    try (HeaderScope scope = HeaderScope.open(Map.of("tenant", "acme", "trace-id", "scope"))) {
      reply = channel.exchange(echoRequest(BINARY, "x", 7)).get(10, TimeUnit.SECONDS);
    }
    assertThat(echoReply(BINARY, reply)).isEqualTo("x");
    assertThat(seen.get(0)).containsEntry("trace-id", "t-7").containsEntry("tenant", "acme");
  }

  @Test
  void httpChannelAndSyncTransportSendTheHeadersToo() throws Exception {
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    InetSocketAddress address = server(seen);
    ClientOptions http = ClientOptions.builder().wireKind(WireKind.HTTP).build();
    ThriftChannel channel = closeLater(resources().openChannel(address, http));
    TTransport transport = closeLater(resources().openTransport(address, http));
    try (HeaderScope scope = HeaderScope.open(Map.of("X-Tenant", "acme"))) {
      assertThat(
              echoReply(
                  BINARY, channel.exchange(echoRequest(BINARY, "h", 1)).get(10, TimeUnit.SECONDS)))
          .isEqualTo("h");
      new BenchService.Client(BINARY.getProtocol(transport)).echo(ByteBuffer.wrap(new byte[] {1}));
    }
    assertThat(seen).hasSize(2);
    for (Map<String, String> headers : seen) {
      assertThat(headers)
          .containsEntry("x-tenant", "acme")
          .containsKey(ServerCallContext.CLIENT_TIMEOUT_HEADER);
    }
    // A header that would split the request fails the call before anything is sent.
    try (HeaderScope scope = HeaderScope.open(Map.of("x-bad", "a\r\nInjected: 1"))) {
      CompletableFuture<ByteBuffer> refused = channel.exchange(echoRequest(BINARY, "r", 2));
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(TProtocolException.class)
          .hasMessageContaining("expected: no control characters such as CR or LF");
    }
    assertThat(seen).hasSize(2);
  }

  @Test
  void jsonMessageFailsBeforeItIsSentAndTheChannelGoesOn() throws Exception {
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    ThriftChannel channel = closeLater(resources().openChannel(server(seen), HEADER));
    CompletableFuture<ByteBuffer> json =
        channel.exchange(echoRequest(new TJSONProtocol.Factory(), "j", 1));
    assertThatThrownBy(() -> json.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(TProtocolException.class)
        .hasMessageContaining("5b, JSON")
        .hasMessageContaining("expected: 80 01");
    assertThat(
            echoReply(
                BINARY, channel.exchange(echoRequest(BINARY, "ok", 2)).get(10, TimeUnit.SECONDS)))
        .isEqualTo("ok");
    assertThat(seen).hasSize(1);
  }

  @Test
  void repliesOutOfOrderCompleteTheirOwnCallsWithTheirHeaders() throws Exception {
    InetSocketAddress raw = rawServerAnsweringPairsInReverse();
    List<Map<String, String>> afterCall = new CopyOnWriteArrayList<>();
    ClientInterceptor recording =
        new ClientInterceptor() {
          @Override
          public void afterCall(
              ClientCallContext context, CallOutcome outcome, Throwable failure, long n) {
            afterCall.add(context.responseHeaders());
          }
        };
    ThriftChannel channel =
        closeLater(
            resources()
                .openChannel(raw, HEADER.toBuilder().interceptors(List.of(recording)).build()));
    CompletableFuture<ByteBuffer> first;
    CompletableFuture<ByteBuffer> second;
    HeaderScope scope = HeaderScope.open(Map.of());
    try {
      // Both with message seqid 1: as two generated clients sharing the channel would send them.
      first = channel.exchange(echoRequest(BINARY, "first", 1));
      second = channel.exchange(echoRequest(BINARY, "second", 1));
    } finally {
      scope.close();
    }
    assertThat(echoReply(BINARY, first.get(10, TimeUnit.SECONDS))).isEqualTo("first");
    assertThat(echoReply(BINARY, second.get(10, TimeUnit.SECONDS))).isEqualTo("second");
    // The second call's reply came first: the last reply the scope saw is the first call's.
    assertThat(scope.responseHeaders()).containsEntry("answered", "first");
    assertThat(afterCall)
        .containsExactlyInAnyOrder(Map.of("answered", "second"), Map.of("answered", "first"));
  }

  @Test
  void attachedContextIsCurrentInTheFuturesDependentStage() throws Exception {
    ThreadLocal<String> current = new ThreadLocal<>();
    ClientInterceptor attaching =
        new ClientInterceptor() {
          @Override
          public Runnable attach(ClientCallContext context) {
            current.set("call " + context.methodName());
            return current::remove;
          }
        };
    // The server answers once the dependent stage is added: else a fast reply completes the
    // future first, and the stage runs on this thread, where nothing is attached.
    CountDownLatch added = new CountDownLatch(1);
    ServerInterceptor gate =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            try {
              added.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt(); // the test fails on its own timeout then
            }
          }
        };
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .wireKinds(WireKind.FRAMED, WireKind.HEADER)
            .interceptors(List.of(gate))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    closeLater(server::close);
    ThriftChannel channel =
        closeLater(
            resources()
                .openChannel(
                    server.localAddress(),
                    HEADER.toBuilder().interceptors(List.of(attaching)).build()));
    CompletableFuture<ByteBuffer> call = channel.exchange(echoRequest(BINARY, "a", 1));
    Map<String, String> seenInDependent = new ConcurrentHashMap<>();
    CompletableFuture<String> dependent =
        call.thenApply(
            reply -> {
              seenInDependent.put("value", String.valueOf(current.get()));
              return "done";
            });
    added.countDown();
    assertThat(dependent.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(seenInDependent).containsEntry("value", "call echo");
  }

  @Test
  void attachedContextIsCurrentInAnAsyncClientsCallback() throws Exception {
    ThreadLocal<String> current = new ThreadLocal<>();
    ClientInterceptor attaching =
        new ClientInterceptor() {
          @Override
          public Runnable attach(ClientCallContext context) {
            current.set("call " + context.methodName());
            return current::remove;
          }
        };
    ThriftChannel channel =
        closeLater(
            resources()
                .openChannel(
                    server(new CopyOnWriteArrayList<>()),
                    HEADER.toBuilder().interceptors(List.of(attaching)).build()));
    ExecutorService callbacks = Executors.newSingleThreadExecutor();
    closeLater(callbacks::shutdownNow);
    BenchService.AsyncIface async =
        AsyncClients.asyncIface(
            BenchService.AsyncIface.class, channel, BenchService.Client::new, BINARY, callbacks);
    CompletableFuture<String> seenInCallback = new CompletableFuture<>();
    async.echo(
        ByteBuffer.wrap(new byte[] {1}),
        new AsyncMethodCallback<>() {
          @Override
          public void onComplete(ByteBuffer response) {
            seenInCallback.complete(String.valueOf(current.get()));
          }

          @Override
          public void onError(Exception e) {
            seenInCallback.completeExceptionally(e);
          }
        });
    assertThat(seenInCallback.get(10, TimeUnit.SECONDS)).isEqualTo("call echo");
    // Closed after the callback: the executor's thread carries nothing on to its next task.
    assertThat(callbacks.submit(() -> String.valueOf(current.get())).get(10, TimeUnit.SECONDS))
        .isEqualTo("null");
  }

  @Test
  void attachedContextIsCurrentInTheCallbackOfACallCompletedBeforeItWasRegistered()
      throws Exception {
    ThreadLocal<String> current = new ThreadLocal<>();
    ClientInterceptor attaching =
        new ClientInterceptor() {
          @Override
          public Runnable attach(ClientCallContext context) {
            current.set("call " + context.methodName());
            return current::remove;
          }
        };
    ThriftChannel channel =
        resources()
            .openChannel(
                server(new CopyOnWriteArrayList<>()),
                HEADER.toBuilder().interceptors(List.of(attaching)).build());
    // Closed first: the call fails on this thread, inside the exchange, so its future is complete
    // before the bridge registers its continuation; the context must still be current there.
    channel.close();
    ExecutorService callbacks = Executors.newSingleThreadExecutor();
    closeLater(callbacks::shutdownNow);
    BenchService.AsyncIface async =
        AsyncClients.asyncIface(
            BenchService.AsyncIface.class, channel, BenchService.Client::new, BINARY, callbacks);
    CompletableFuture<String> seenInCallback = new CompletableFuture<>();
    async.echo(
        ByteBuffer.wrap(new byte[] {1}),
        new AsyncMethodCallback<>() {
          @Override
          public void onComplete(ByteBuffer response) {
            seenInCallback.completeExceptionally(new AssertionError("a closed channel answered"));
          }

          @Override
          public void onError(Exception e) {
            seenInCallback.complete(String.valueOf(current.get()));
          }
        });
    assertThat(seenInCallback.get(10, TimeUnit.SECONDS)).isEqualTo("call echo");
  }

  /**
   * A raw THeader server: reads two request frames, answers the second first, each reply echoing
   * its request's payload and header sequence id with an info header {@code answered} naming the
   * payload.
   */
  private InetSocketAddress rawServerAnsweringPairsInReverse() throws IOException {
    ServerSocket server = closeLater(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    Thread t =
        new Thread(
            () -> {
              try (Socket s = server.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                byte[][] frames = {readFrame(in), readFrame(in)};
                for (int i = 1; i >= 0; i--) {
                  out.write(reply(frames[i]));
                }
                out.flush();
                in.read(); // holds the connection until the client closes it
              } catch (Exception closed) {
                // the server socket was closed after the test: the thread ends
              }
            },
            "raw-theader-server");
    t.setDaemon(true);
    t.start();
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  private static byte[] readFrame(DataInputStream in) throws IOException {
    byte[] frame = new byte[in.readInt()];
    in.readFully(frame);
    return frame;
  }

  /** The echo reply to a binary THeader request frame (no length prefix). */
  private static byte[] reply(byte[] request) throws TException {
    ByteBuffer frame = ByteBuffer.wrap(request);
    assertThat(frame.getShort(0)).isEqualTo((short) 0x0FFF);
    int flags = frame.getShort(2) & 0xffff;
    assertThat(flags & 1).as("out-of-order support flag").isEqualTo(1);
    int wireSeqId = frame.getInt(4);
    int payloadAt = 10 + (frame.getShort(8) & 0xffff) * 4;
    byte[] message = new byte[request.length - payloadAt];
    frame.position(payloadAt).get(message);
    TMemoryBuffer in = new TMemoryBuffer(message.length);
    in.write(message);
    org.apache.thrift.protocol.TProtocol p = BINARY.getProtocol(in);
    org.apache.thrift.protocol.TMessage header = p.readMessageBegin();
    BenchService.echo_args args = new BenchService.echo_args();
    args.read(p);
    TMemoryBuffer out = new TMemoryBuffer(64);
    org.apache.thrift.protocol.TProtocol w = BINARY.getProtocol(out);
    w.writeMessageBegin(
        new org.apache.thrift.protocol.TMessage(
            "echo", org.apache.thrift.protocol.TMessageType.REPLY, header.seqid));
    new BenchService.echo_result().setSuccess(args.payload).write(w);
    w.writeMessageEnd();
    String answered = new String(args.getPayload(), StandardCharsets.UTF_8);
    return THeaderFrames.request()
        .seqId(wireSeqId)
        .flags(flags)
        .header("answered", answered)
        .frame(java.util.Arrays.copyOf(out.getArray(), out.length()));
  }
}
