package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.AsyncCaller;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.LockCheckingInterceptor;
import io.thriftnio.testkit.RecordingClientInterceptor;
import io.thriftnio.testkit.RecordingClientInterceptor.Ended;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClientInterceptor}s on a channel ({@link ClientOptions.Builder#interceptors}), the same on
 * every transport: each call's method, sequence id, endpoint, outcome and time for a success, a
 * declared exception, an application exception, a transport failure, a timeout and a oneway
 * message; a refusal that the caller gets and the server never sees; the order of two interceptors;
 * and an {@code afterCall} that throws without changing the result. Calls go through core's {@link
 * AsyncClients} over a channel of {@link #newResources()}, to a server of {@link
 * #newServerBuilder()}. A transport runs it through a small subclass.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public abstract class ClientInterceptorSuite {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();

  /** {@code recv_fail} is void: the reply decodes to {@code null}. */
  private static final AsyncClients.Receive<BenchService.Client, Void> RECV_FAIL =
      c -> {
        c.recv_fail();
        return null;
      };

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private ClientIo resources;
  private final RecordingHandler handler = new RecordingHandler();

  /** Installed first on every client: no interceptor hook runs under a library lock (issue 38). */
  private final LockCheckingInterceptor lockCheck = new LockCheckingInterceptor();

  /** New client resources of the transport under test; the suite closes them. */
  protected abstract ClientIo newResources();

  /** A fresh builder of the transport's server. */
  protected abstract ServerBuilder<?> newServerBuilder();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    if (resources != null) {
      resources.close();
    }
    assertThat(lockCheck.held()).as("library locks held while an interceptor ran").isEmpty();
  }

  private ThriftServer server() throws IOException {
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(handler))
            .protocol(BINARY)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    closeables.add(server);
    return server.start();
  }

  private AsyncCaller<BenchService.Client> caller(
      InetSocketAddress address, ClientOptions options, TProtocolFactory protocol)
      throws TException {
    if (resources == null) {
      resources = newResources();
    }
    ThriftChannel channel = resources.openChannel(address, options);
    closeables.add(channel);
    return AsyncCaller.of(channel, BenchService.Client::new, protocol, Runnable::run);
  }

  private AsyncCaller<BenchService.Client> caller(
      InetSocketAddress address, ClientInterceptor... interceptors) throws TException {
    List<ClientInterceptor> all = new ArrayList<>();
    all.add(lockCheck); // first: its hooks run around every other's
    all.addAll(List.of(interceptors));
    return caller(address, ClientOptions.builder().interceptors(all).build(), BINARY);
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return f.handle((ok, t) -> t).join();
  }

  @Test
  void aSuccessGivesMethodSeqIdEndpointAndTime() throws Exception {
    ThriftServer server = server();
    RecordingClientInterceptor r = new RecordingClientInterceptor();
    AsyncCaller<BenchService.Client> caller = caller(server.localAddress(), r);

    long before = System.nanoTime();
    ByteBuffer reply =
        caller
            .call(c -> c.send_echo(ByteBuffer.wrap(new byte[5])), BenchService.Client::recv_echo)
            .get(10, TimeUnit.SECONDS);
    long elapsed = System.nanoTime() - before;

    assertThat(reply.remaining()).isEqualTo(5);
    Ended e = r.only();
    assertThat(e.outcome()).isEqualTo(CallOutcome.SUCCESS);
    assertThat(e.failure()).isNull();
    assertThat(e.context().methodName()).isEqualTo("echo");
    assertThat(e.context().seqId()).isPositive();
    assertThat(e.context().messageType()).isEqualTo(TMessageType.CALL);
    assertThat(e.context().isOneway()).isFalse();
    assertThat(e.context().remoteAddress()).isEqualTo(server.localAddress());
    assertThat(e.nanos()).isPositive().isLessThanOrEqualTo(elapsed);
    assertThat(e.context().attribute(RecordingClientInterceptor.STARTED))
        .isBetween(before, before + elapsed);
  }

  @Test
  void theMethodIsReadInTheCompactProtocolToo() throws Exception {
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(handler))
            .protocol(new TCompactProtocol.Factory())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    closeables.add(server);
    server.start();
    RecordingClientInterceptor r = new RecordingClientInterceptor();
    AsyncCaller<BenchService.Client> caller =
        caller(
            server.localAddress(),
            ClientOptions.builder().interceptors(List.of(r)).build(),
            new TCompactProtocol.Factory());

    caller
        .call(c -> c.send_fail(7, "declared"), RECV_FAIL)
        .handle((ok, t) -> t)
        .get(10, TimeUnit.SECONDS);

    assertThat(r.only().context().methodName()).isEqualTo("fail");
    assertThat(r.only().outcome()).isEqualTo(CallOutcome.DECLARED_EXCEPTION);
  }

  @Test
  void aDeclaredExceptionAndAnApplicationExceptionAreTold() throws Exception {
    ThriftServer server = server();
    RecordingClientInterceptor r = new RecordingClientInterceptor();
    AsyncCaller<BenchService.Client> caller = caller(server.localAddress(), r);

    Throwable declared = failureOf(caller.call(c -> c.send_fail(7, "declared"), RECV_FAIL));
    Throwable application =
        failureOf(
            caller.call(
                c -> c.send_fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "boom"),
                RECV_FAIL));

    assertThat(declared).isInstanceOf(BenchError.class);
    assertThat(application).isInstanceOf(TApplicationException.class);
    assertThat(r.ended())
        .extracting(Ended::outcome)
        .containsExactly(CallOutcome.DECLARED_EXCEPTION, CallOutcome.APPLICATION_EXCEPTION);
    // A declared exception is the service's answer: no failure. The TApplicationException is the
    // failure, the same type, code and message the caller got.
    assertThat(r.ended().get(0).failure()).isNull();
    assertThat(r.ended().get(1).failure())
        .isInstanceOf(TApplicationException.class)
        .hasMessage(application.getMessage());
    assertThat(((TApplicationException) r.ended().get(1).failure()).getType())
        .isEqualTo(((TApplicationException) application).getType())
        .isEqualTo(TApplicationException.INTERNAL_ERROR);
  }

  /** An echo through a channel with {@code options} and {@code r} to {@code peer}: its failure. */
  private Throwable echoFailure(
      StubPeer peer, ClientOptions.Builder options, RecordingClientInterceptor r) throws Exception {
    AsyncCaller<BenchService.Client> caller =
        caller(peer.address, options.interceptors(List.of(r)).build(), BINARY);
    return failureOf(
        caller.call(c -> c.send_echo(ByteBuffer.allocate(1)), BenchService.Client::recv_echo));
  }

  @Test
  void aTransportFailureIsToldWithTheFailureTheCallerGets() throws Exception {
    try (StubPeer peer = new StubPeer(StubPeer.Mode.OVERSIZE)) {
      RecordingClientInterceptor r = new RecordingClientInterceptor();
      Throwable failure =
          echoFailure(peer, ClientOptions.builder().maxFrameSize(StubPeer.OVERSIZE - 1), r);

      assertThat(failure).isInstanceOf(TTransportException.class);
      Ended e = r.only();
      assertThat(e.outcome()).isEqualTo(CallOutcome.TRANSPORT_FAILURE);
      assertThat(e.failure()).isSameAs(failure);
      assertThat(e.context().remoteAddress()).isEqualTo(peer.address);
    }
  }

  @Test
  void aTimeoutIsTold() throws Exception {
    try (StubPeer peer = new StubPeer(StubPeer.Mode.SILENT)) {
      RecordingClientInterceptor r = new RecordingClientInterceptor();
      Throwable failure =
          echoFailure(peer, ClientOptions.builder().callTimeout(Duration.ofMillis(200)), r);

      assertThat(((TTransportException) failure).getType())
          .isEqualTo(TTransportException.TIMED_OUT);
      Ended e = r.only();
      assertThat(e.outcome()).isEqualTo(CallOutcome.TIMED_OUT);
      assertThat(e.failure()).isSameAs(failure);
      assertThat(e.nanos()).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
    }
  }

  @Test
  void aOnewayMessageIsToldOnceWritten() throws Exception {
    ThriftServer server = server();
    RecordingClientInterceptor r = new RecordingClientInterceptor();
    AsyncCaller<BenchService.Client> caller = caller(server.localAddress(), r);

    caller.callOneway(c -> c.send_fire(ByteBuffer.allocate(3))).get(10, TimeUnit.SECONDS);

    Ended e = r.only();
    assertThat(e.outcome()).isEqualTo(CallOutcome.ONEWAY);
    assertThat(e.context().methodName()).isEqualTo("fire");
    assertThat(e.context().isOneway()).isTrue();
    assertThat(e.failure()).isNull();
  }

  @Test
  void aRefusalReachesTheCallerAndNeverTheServer() throws Exception {
    ThriftServer server = server();
    TException no = new TException("echo is not allowed here");
    List<String> events = new CopyOnWriteArrayList<>();
    RecordingClientInterceptor outer = new RecordingClientInterceptor("outer", events);
    ClientInterceptor refuser =
        new ClientInterceptor() {
          @Override
          public void beforeCall(ClientCallContext context) throws TException {
            if (context.methodName().equals("echo")) {
              throw no;
            }
          }
        };
    RecordingClientInterceptor inner = new RecordingClientInterceptor("inner", events);
    AsyncCaller<BenchService.Client> caller = caller(server.localAddress(), outer, refuser, inner);

    Throwable failure =
        failureOf(
            caller.call(c -> c.send_echo(ByteBuffer.allocate(9)), BenchService.Client::recv_echo));
    caller
        .call(c -> c.send_get_last_sale("after"), BenchService.Client::recv_get_last_sale)
        .get(10, TimeUnit.SECONDS);

    assertThat(failure).isSameAs(no);
    assertThat(outer.ended().get(0).outcome()).isEqualTo(CallOutcome.REFUSED);
    assertThat(outer.ended().get(0).failure()).isSameAs(no);
    assertThat(events)
        .containsExactly(
            "before outer echo",
            "after outer echo REFUSED",
            "before outer get_last_sale",
            "before inner get_last_sale",
            "after inner get_last_sale SUCCESS",
            "after outer get_last_sale SUCCESS");
    // The channel stayed usable, and the server saw only the second call.
    assertThat(handler.calls()).containsOnlyKeys("get_last_sale(after)");
  }

  @Test
  void aBeforeCallThatFailsRefusesThatCallAloneNamingTheInterceptor() throws Exception {
    ThriftServer server = server();
    IllegalStateException bug = new IllegalStateException("bug");
    ClientInterceptor failing =
        new ClientInterceptor() {
          @Override
          public void beforeCall(ClientCallContext context) {
            if (context.methodName().equals("echo")) {
              throw bug;
            }
          }
        };
    RecordingClientInterceptor r = new RecordingClientInterceptor();
    AsyncCaller<BenchService.Client> caller = caller(server.localAddress(), r, failing);

    Throwable failure =
        failureOf(
            caller.call(c -> c.send_echo(ByteBuffer.allocate(9)), BenchService.Client::recv_echo));
    caller.call(c -> c.send_fired(), BenchService.Client::recv_fired).get(10, TimeUnit.SECONDS);

    assertThat(failure)
        .isExactlyInstanceOf(TException.class)
        .hasCause(bug)
        .hasMessageContaining("echo to ")
        .hasMessageContaining(failing.getClass().getName());
    assertThat(r.ended())
        .extracting(Ended::outcome)
        .containsExactly(CallOutcome.REFUSED, CallOutcome.SUCCESS);
    assertThat(r.ended().get(0).failure()).isSameAs(failure);
    assertThat(handler.calls()).containsOnlyKeys("fired()");
  }

  @Test
  void anAfterCallThatThrowsChangesNothing() throws Exception {
    ThriftServer server = server();
    List<String> events = new CopyOnWriteArrayList<>();
    RecordingClientInterceptor outer = new RecordingClientInterceptor("outer", events);
    ClientInterceptor throwing = RecordingClientInterceptor.throwingAfterCall();
    AsyncCaller<BenchService.Client> caller = caller(server.localAddress(), outer, throwing);

    ByteBuffer reply =
        caller
            .call(c -> c.send_echo(ByteBuffer.wrap(new byte[4])), BenchService.Client::recv_echo)
            .get(10, TimeUnit.SECONDS);

    assertThat(reply.remaining()).isEqualTo(4);
    assertThat(events).containsExactly("before outer echo", "after outer echo SUCCESS");
  }
}
