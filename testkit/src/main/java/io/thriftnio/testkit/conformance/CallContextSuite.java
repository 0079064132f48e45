package io.thriftnio.testkit.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thriftnio.core.CallKey;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.VirtualThreads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSession;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * {@link ServerCallContext} and {@link ServerInterceptor}s on a real server: the handler sees its
 * caller (addresses, TLS peer), method and sequence id on every strategy; interceptors run in
 * order, see each outcome, refuse calls, fail one call alone, and replies on a pipelining
 * connection keep their order. Each transport runs it once per strategy, and once over mutual TLS:
 * one {@link ServerCell} each, where {@link #tls()} says whether the cell has TLS.
 *
 * <p>The interceptors below (an allow-list by peer certificate subject, a per-method concurrency
 * limit, an access log) are examples as much as fixtures.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.STRATEGIES_AND_MUTUAL_TLS)
public abstract class CallContextSuite extends ServerCellSuite {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final CallKey<String> USER = CallKey.of("user");
  private static final String CLIENT_SUBJECT = "CN=thrift-nio test client";

  /** A type no server produces on its own, so a reply with it can only come from the refusal. */
  private static final int REFUSED_TYPE = TApplicationException.UNSUPPORTED_CLIENT_TYPE;

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /**
   * Whether the server speaks mutual TLS (client certificates from {@link TestPki#shared()}
   * required) and the suite's connections present {@link TestPki#clientKeys()}: whether the cell
   * has TLS.
   */
  protected boolean tls() {
    return cell().tls() != null;
  }

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  // ---- fixtures -------------------------------------------------------------------------------

  /**
   * Answers {@code echo(question)} with what {@link ServerCallContext#current()} says: {@code
   * remote}, {@code local}, {@code method}, {@code seqid}, {@code connection}, {@code peer}, {@code
   * tls}, {@code user}; notes the context of every oneway {@code fire}; {@code sleep(n)} with
   * {@code n > 0} waits for {@link #release}.
   */
  static class ContextHandler extends FaultInjectingHandler {
    final BlockingQueue<ServerCallContext> fired = new LinkedBlockingQueue<>();
    final AtomicInteger echoes = new AtomicInteger();
    final CountDownLatch sleeping = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public ByteBuffer echo(ByteBuffer payload) {
      echoes.incrementAndGet();
      return ByteBuffer.wrap(
          answer(ServerCallContext.current(), UTF_8.decode(payload).toString()).getBytes(UTF_8));
    }

    @Override
    public void fire(ByteBuffer payload) {
      fired.add(ServerCallContext.current());
    }

    @Override
    public void sleep(int millis) {
      if (millis == 0) {
        return;
      }
      sleeping.countDown();
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static String answer(ServerCallContext c, String question) {
    switch (question) {
      case "remote":
        return hostPort(c.remoteAddress());
      case "local":
        return hostPort(c.localAddress());
      case "method":
        return c.methodName();
      case "seqid":
        return Integer.toString(c.seqId());
      case "connection":
        return Long.toString(c.connectionId());
      case "peer":
        return c.peerPrincipal().map(Principal::getName).orElse("none");
      case "tls":
        return c.tlsSession().map(SSLSession::getProtocol).orElse("none");
      case "user":
        return String.valueOf(c.attribute(USER));
      case "received":
        return Boolean.toString(System.nanoTime() - c.receivedAtNanos() >= 0);
      default:
        return question;
    }
  }

  private static String hostPort(SocketAddress address) {
    InetSocketAddress a = (InetSocketAddress) address;
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  private ServerBuilder<?> builder() {
    ServerTls serverTls = tls() ? TestPki.shared().mutualServerTls().build() : null;
    return newServerBuilder()
        .protocol(PROTOCOL)
        .ioStrategy(strategy())
        .tls(serverTls)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private ThriftServer start(ServerBuilder<?> builder) throws IOException {
    ThriftServer server = builder.build();
    servers.add(server);
    return server.start();
  }

  private ThriftServer start(ContextHandler handler, ServerInterceptor... interceptors)
      throws IOException {
    return start(
        builder()
            .processor(new BenchService.Processor<>(handler))
            .interceptors(List.of(interceptors)));
  }

  private RawConnection open(ThriftServer server) throws IOException {
    TestPki pki = TestPki.shared();
    RawConnection c =
        tls()
            ? RawConnection.open(
                server.localAddress(), pki.sslContext(pki.clientKeys()).getSocketFactory())
            : RawConnection.open(server.localAddress());
    closeables.add(c);
    return c;
  }

  private static byte[] frame(String method, byte type, int seqid, TBase<?, ?> args)
      throws Exception {
    return RawConnection.frame(RawConnection.encodeCall(PROTOCOL, method, type, seqid, args));
  }

  private static byte[] echoFrame(int seqid, String question) throws Exception {
    return frame(
        "echo",
        TMessageType.CALL,
        seqid,
        new BenchService.echo_args(ByteBuffer.wrap(question.getBytes(UTF_8))));
  }

  /** Reads one echo reply: its seqid and answer. */
  private static String readEcho(RawConnection c, int seqid) throws Exception {
    BenchService.echo_result result = new BenchService.echo_result();
    TMessage header = RawConnection.decodeReply(PROTOCOL, c.readFrame(), result);
    assertThat(header.seqid).as("replies in request order").isEqualTo(seqid);
    return new String(result.getSuccess(), UTF_8);
  }

  private static String ask(RawConnection c, int seqid, String question) throws Exception {
    c.write(echoFrame(seqid, question));
    return readEcho(c, seqid);
  }

  /** Reads one reply that must be a {@link TApplicationException}, and returns it. */
  private static TApplicationException readFailure(RawConnection c, int seqid) throws Exception {
    TProtocol p = PROTOCOL.getProtocol(new TMemoryInputTransport(c.readFrame()));
    TMessage header = p.readMessageBegin();
    assertThat(header.seqid).as("replies in request order").isEqualTo(seqid);
    assertThat(header.type).as("%s", header).isEqualTo(TMessageType.EXCEPTION);
    return TApplicationException.readFrom(p);
  }

  // ---- the context ----------------------------------------------------------------------------

  @Test
  void theHandlerSeesItsCallersAddressMethodAndSequenceId() throws Exception {
    ThriftServer server = start(new ContextHandler());
    RawConnection c = open(server);

    assertThat(ask(c, 1, "remote"))
        .as("the server's peer is the client's own local address")
        .isEqualTo(hostPort(c.localAddress()));
    assertThat(ask(c, 2, "local")).isEqualTo(hostPort(server.localAddress()));
    assertThat(ask(c, 3, "method")).isEqualTo("echo");
    assertThat(ask(c, 77, "seqid")).isEqualTo("77");
    assertThat(ask(c, 5, "received")).isEqualTo("true");
    assertThat(ask(c, 6, "user")).as("no interceptor, no attribute").isEqualTo("null");
  }

  @Test
  void theTlsPeerIsTheClientCertificatesSubject() throws Exception {
    ThriftServer server = start(new ContextHandler());
    RawConnection c = open(server);
    if (tls()) {
      assertThat(ask(c, 1, "peer")).isEqualTo(CLIENT_SUBJECT);
      assertThat(ask(c, 2, "tls")).startsWith("TLSv1.");
    } else {
      assertThat(ask(c, 1, "peer")).isEqualTo("none");
      assertThat(ask(c, 2, "tls")).isEqualTo("none");
    }
  }

  @Test
  void aConnectionKeepsItsIdAndAnotherGetsItsOwn() throws Exception {
    ThriftServer server = start(new ContextHandler());
    RawConnection first = open(server);
    RawConnection second = open(server);
    String id = ask(first, 1, "connection");
    assertThat(Long.parseLong(id)).isPositive();
    assertThat(ask(first, 2, "connection")).isEqualTo(id);
    assertThat(ask(second, 1, "connection")).isNotEqualTo(id);
  }

  @Test
  void aOnewayHandlerSeesItsContextToo() throws Exception {
    ContextHandler handler = new ContextHandler();
    ThriftServer server = start(handler);
    RawConnection c = open(server);
    c.write(
        frame("fire", TMessageType.ONEWAY, 8, new BenchService.fire_args(ByteBuffer.allocate(1))));
    ServerCallContext fired = handler.fired.poll(10, TimeUnit.SECONDS);
    assertThat(fired).as("fire ran").isNotNull();
    assertThat(fired.isOneway()).isTrue();
    assertThat(fired.methodName()).isEqualTo("fire");
    assertThat(fired.seqId()).isEqualTo(8);
    assertThat(hostPort(fired.remoteAddress())).isEqualTo(hostPort(c.localAddress()));
  }

  @Test
  void anAsyncHandlerTakesTheContextAtStartAndAnswersFromAnotherThread() throws Exception {
    ExecutorService elsewhere = Executors.newSingleThreadExecutor();
    closeables.add(elsewhere::shutdownNow);
    AsyncBenchHandler async =
        new AsyncBenchHandler() {
          @Override
          public void echo(ByteBuffer payload, AsyncMethodCallback<ByteBuffer> cb) {
            ServerCallContext context = ServerCallContext.current();
            String question = UTF_8.decode(payload).toString();
            elsewhere.execute(
                () -> cb.onComplete(ByteBuffer.wrap(answer(context, question).getBytes(UTF_8))));
          }
        };
    ThriftServer server = start(builder().asyncProcessor(new BenchService.AsyncProcessor<>(async)));
    RawConnection c = open(server);
    assertThat(ask(c, 1, "remote")).isEqualTo(hostPort(c.localAddress()));
    assertThat(ask(c, 2, "method")).isEqualTo("echo");
    assertThat(ask(c, 3, "seqid")).isEqualTo("3");
  }

  @Test
  void nothingLeaksToTheNextTaskOfAWorkerThread() throws Exception {
    assumeTrue(strategy() == IoStrategy.WORKER, "WORKER only: the test owns the worker thread");
    ExecutorService worker = Executors.newSingleThreadExecutor();
    closeables.add(worker::shutdownNow);
    ThriftServer server =
        start(
            builder()
                .processor(new BenchService.Processor<>(new ContextHandler()))
                .workerExecutor(worker));
    RawConnection c = open(server);
    assertThat(ask(c, 1, "method")).isEqualTo("echo");
    assertThatThrownBy(() -> worker.submit(ServerCallContext::current).get(10, TimeUnit.SECONDS))
        .as("the same worker thread, after the call")
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void aHandlerOnAVirtualThreadSeesItsContext() throws Exception {
    assumeTrue(strategy() == IoStrategy.WORKER, "WORKER only: virtual threads are a worker");
    ExecutorService virtual = VirtualThreads.newPerTaskExecutor();
    closeables.add(virtual::shutdownNow);
    ThriftServer server =
        start(
            builder()
                .processor(new BenchService.Processor<>(new ContextHandler()))
                .workerExecutor(virtual));
    RawConnection c = open(server);
    assertThat(ask(c, 1, "remote")).isEqualTo(hostPort(c.localAddress()));
    assertThat(ask(c, 2, "method")).isEqualTo("echo");
  }

  @Test
  void currentOutsideACallSaysWhy() {
    assertThatThrownBy(ServerCallContext::current)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not running a Thrift call");
  }

  // ---- interceptors ---------------------------------------------------------------------------

  /** Notes "name:before method" and "name:after method OUTCOME". */
  static final class Recording implements ServerInterceptor {
    private final String name;
    final List<String> events;

    Recording(String name, List<String> events) {
      this.name = name;
      this.events = events;
    }

    @Override
    public void beforeCall(ServerCallContext context) {
      events.add(name + ":before " + context.methodName());
    }

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      events.add(name + ":after " + context.methodName() + " " + outcome);
    }
  }

  @Test
  void interceptorsRunInOrderAroundEachCallAndSeeItsOutcome() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    ThriftServer server =
        start(new ContextHandler(), new Recording("a", events), new Recording("b", events));
    RawConnection c = open(server);

    assertThat(ask(c, 1, "method")).isEqualTo("echo");
    assertThat(events)
        .containsExactly(
            "a:before echo", "b:before echo", "b:after echo SUCCESS", "a:after echo SUCCESS");

    events.clear();
    c.write(frame("fail", TMessageType.CALL, 2, new BenchService.fail_args(7, "declared")));
    BenchService.fail_result declared = new BenchService.fail_result();
    RawConnection.decodeReply(PROTOCOL, c.readFrame(), declared);
    assertThat((Object) declared.error).isInstanceOf(BenchError.class);
    assertThat(events).contains("a:after fail DECLARED_EXCEPTION");

    events.clear();
    c.write(
        frame(
            "fail",
            TMessageType.CALL,
            3,
            new BenchService.fail_args(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "bug")));
    assertThat(readFailure(c, 3).getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(events).contains("a:after fail UNDECLARED_FAILURE");

    events.clear();
    c.write(frame("no_such_method", TMessageType.CALL, 4, new BenchService.sleep_args(0)));
    assertThat(readFailure(c, 4).getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD);
    assertThat(events).contains("a:after no_such_method APPLICATION_EXCEPTION");
  }

  /** Refuses callers whose TLS client certificate subject is not on the list. */
  static final class AllowList implements ServerInterceptor {
    private final Set<String> subjects;

    AllowList(Set<String> subjects) {
      this.subjects = subjects;
    }

    @Override
    public void beforeCall(ServerCallContext context) throws TApplicationException {
      String subject = context.peerPrincipal().map(Principal::getName).orElse(null);
      if (subject == null || !subjects.contains(subject)) {
        throw new TApplicationException(
            REFUSED_TYPE,
            "caller "
                + (subject == null ? "without a client certificate" : subject)
                + " may not call "
                + context.methodName());
      }
    }
  }

  @Test
  void anAllowListByPeerSubjectRefusesOthersBeforeTheHandlerRuns() throws Exception {
    ContextHandler handler = new ContextHandler();
    List<String> events = new CopyOnWriteArrayList<>();
    ThriftServer server =
        start(
            handler,
            new Recording("log", events),
            new AllowList(Set.of("CN=someone else")),
            new Recording("never", events));
    RawConnection c = open(server);

    c.write(echoFrame(1, "method"));
    TApplicationException refused = readFailure(c, 1);

    assertThat(refused.getType()).isEqualTo(REFUSED_TYPE);
    assertThat(refused.getMessage())
        .isEqualTo(
            "caller "
                + (tls() ? CLIENT_SUBJECT : "without a client certificate")
                + " may not call echo");
    assertThat(handler.echoes.get()).as("the handler never ran").isZero();
    assertThat(events).containsExactly("log:before echo", "log:after echo REFUSED");
    assertThat(server.stats().failedCalls()).as("%s", server.stats()).isEqualTo(1);
    c.write(echoFrame(2, "method"));
    assertThat(readFailure(c, 2).getType()).as("the connection stays open").isEqualTo(REFUSED_TYPE);
  }

  @Test
  void anAllowedPeerGetsThroughWithItsIdentityAttached() throws Exception {
    assumeTrue(tls(), "mutual TLS only: a plain connection has no subject to allow");
    ServerInterceptor attach =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            context.setAttribute(USER, context.peerPrincipal().get().getName());
          }
        };
    ThriftServer server =
        start(new ContextHandler(), new AllowList(Set.of(CLIENT_SUBJECT)), attach);
    RawConnection c = open(server);
    assertThat(ask(c, 1, "user")).isEqualTo(CLIENT_SUBJECT);
  }

  @Test
  void anInterceptorHandsAttributesToTheHandler() throws Exception {
    ServerInterceptor attach =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            context.setAttribute(USER, "alice#" + context.seqId());
          }
        };
    ThriftServer server = start(new ContextHandler(), attach);
    RawConnection c = open(server);
    assertThat(ask(c, 5, "user")).isEqualTo("alice#5");
    assertThat(ask(c, 6, "user")).as("attributes are per call").isEqualTo("alice#6");
  }

  /** Fails {@code get_nested} (a bug) and refuses {@code sleep}. */
  static final class Faulty implements ServerInterceptor {
    @Override
    public void beforeCall(ServerCallContext context) throws TApplicationException {
      if (context.methodName().equals("get_nested")) {
        throw new IllegalStateException("interceptor bug on purpose");
      }
      if (context.methodName().equals("sleep")) {
        throw new TApplicationException(REFUSED_TYPE, "sleep refused");
      }
    }
  }

  @Test
  void aFailingOrRefusingInterceptorFailsItsCallAloneAndPipelinedRepliesKeepTheirOrder()
      throws Exception {
    ContextHandler handler = new ContextHandler();
    ThriftServer server = start(handler, new Faulty());
    RawConnection c = open(server);
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    batch.write(echoFrame(1, "seqid"));
    batch.write(frame("get_nested", TMessageType.CALL, 2, new BenchService.get_nested_args(3)));
    batch.write(frame("sleep", TMessageType.CALL, 3, new BenchService.sleep_args(0)));
    batch.write(echoFrame(4, "seqid"));
    batch.write(echoFrame(5, "seqid"));
    c.write(batch.toByteArray()); // one write: the server reads them as one batch

    assertThat(readEcho(c, 1)).isEqualTo("1");
    TApplicationException failed = readFailure(c, 2);
    assertThat(failed.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(failed.getMessage()).isEqualTo("Internal error processing get_nested");
    TApplicationException refused = readFailure(c, 3);
    assertThat(refused.getType()).isEqualTo(REFUSED_TYPE);
    assertThat(refused.getMessage()).isEqualTo("sleep refused");
    assertThat(readEcho(c, 4)).isEqualTo("4");
    assertThat(readEcho(c, 5)).isEqualTo("5");
    assertThat(ask(c, 6, "method")).as("the connection is still served").isEqualTo("echo");
    assertThat(server.stats().failedCalls()).as("%s", server.stats()).isEqualTo(2);
  }

  /** Refuses a call of a method while {@code limit} calls of it are running. */
  static final class MethodConcurrencyLimit implements ServerInterceptor {
    private final int limit;
    private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

    MethodConcurrencyLimit(int limit) {
      this.limit = limit;
    }

    @Override
    public void beforeCall(ServerCallContext context) throws TApplicationException {
      AtomicInteger n = running.computeIfAbsent(context.methodName(), m -> new AtomicInteger());
      int now = n.incrementAndGet();
      if (now > limit) {
        n.decrementAndGet();
        throw new TApplicationException(
            REFUSED_TYPE,
            context.methodName() + ": " + limit + " calls running (limit " + limit + ")");
      }
    }

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      running.get(context.methodName()).decrementAndGet();
    }
  }

  @Test
  void aPerMethodConcurrencyLimitRefusesTheCallOverIt() throws Exception {
    assumeTrue(
        strategy() == IoStrategy.WORKER,
        "WORKER only: a call that blocks elsewhere would block an IO thread");
    ContextHandler handler = new ContextHandler();
    ThriftServer server = start(handler, new MethodConcurrencyLimit(1));
    RawConnection first = open(server);
    RawConnection second = open(server);

    first.write(frame("sleep", TMessageType.CALL, 1, new BenchService.sleep_args(1)));
    assertThat(handler.sleeping.await(10, TimeUnit.SECONDS)).as("first sleep running").isTrue();
    second.write(frame("sleep", TMessageType.CALL, 1, new BenchService.sleep_args(0)));
    TApplicationException refused = readFailure(second, 1);
    assertThat(refused.getType()).isEqualTo(REFUSED_TYPE);
    assertThat(refused.getMessage()).isEqualTo("sleep: 1 calls running (limit 1)");
    assertThat(ask(second, 2, "method")).as("another method is not limited").isEqualTo("echo");

    handler.release.countDown();
    RawConnection.decodeReply(PROTOCOL, first.readFrame(), new BenchService.sleep_result());
    second.write(frame("sleep", TMessageType.CALL, 3, new BenchService.sleep_args(0)));
    RawConnection.decodeReply(PROTOCOL, second.readFrame(), new BenchService.sleep_result());
  }

  /** One line per call: method, outcome, caller, time taken. */
  static final class AccessLog implements ServerInterceptor {
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      lines.add(
          context.methodName()
              + " "
              + outcome
              + " from "
              + hostPort(context.remoteAddress())
              + " in "
              + TimeUnit.NANOSECONDS.toMicros(nanos)
              + " us");
    }
  }

  @Test
  void anAccessLogSeesEveryCallIncludingOneways() throws Exception {
    AccessLog log = new AccessLog();
    ContextHandler handler = new ContextHandler();
    ThriftServer server = start(handler, log);
    RawConnection c = open(server);
    String from = " from " + hostPort(c.localAddress()) + " in ";

    ask(c, 1, "x");
    assertThat(log.lines.poll(10, TimeUnit.SECONDS)).startsWith("echo SUCCESS" + from);
    c.write(
        frame("fire", TMessageType.ONEWAY, 2, new BenchService.fire_args(ByteBuffer.allocate(1))));
    assertThat(log.lines.poll(10, TimeUnit.SECONDS)).startsWith("fire ONEWAY" + from);
  }
}
