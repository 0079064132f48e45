package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The health probe on the Thrift port ({@link ServerBuilder#healthPath}): a {@code GET} there is
 * {@code 200} while the server serves and {@code 503} once its close began, answered without a call
 * (the processor never runs, no call or bad request is counted); other {@code GET}s keep their
 * {@code 405}. A transport runs it once per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.IO_PATHS)
public abstract class HealthSuite extends ServerCellSuite {

  private static final String PATH = "/thrift";
  private static final String HEALTH = "/health";
  private static final byte[] PROBE =
      ascii("GET " + HEALTH + " HTTP/1.1\r\nHost: test\r\nUser-Agent: kube-probe/1.30\r\n\r\n");

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> clients = new ArrayList<>();

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  private ThriftServer start(BenchService.Iface handler) throws Exception {
    return start(builder().processor(new BenchService.Processor<>(handler)));
  }

  private ServerBuilder<?> builder() {
    return newServerBuilder()
        .ioStrategy(strategy())
        .wireKinds(WireKind.FRAMED, WireKind.HTTP)
        .httpPath(PATH)
        .healthPath(HEALTH)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private ThriftServer start(ServerBuilder<?> builder) throws Exception {
    ThriftServer server = builder.build();
    servers.add(server);
    return server.start();
  }

  private RawConnection raw(ThriftServer server) throws Exception {
    RawConnection raw = RawConnection.open(server.localAddress());
    clients.add(raw);
    return raw;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static byte[] postEcho(TProtocolFactory protocol, int seq) throws Exception {
    byte[] body =
        RawConnection.encodeCall(
            protocol, "echo", seq, new BenchService.echo_args(Payloads.of(seq * 10, seq)));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(ascii("POST " + PATH + " HTTP/1.1\r\nContent-Length: " + body.length + "\r\n\r\n"));
    out.write(body);
    return out.toByteArray();
  }

  private static void assertEchoReply(RawConnection.HttpAnswer answer, int seq) throws Exception {
    assertThat(answer.status()).as(answer.head()).isEqualTo(200);
    BenchService.echo_result result = new BenchService.echo_result();
    TMessage reply =
        RawConnection.decodeReply(new TBinaryProtocol.Factory(), answer.body(), result);
    assertThat(reply.type).isEqualTo(TMessageType.REPLY);
    assertThat(Payloads.check(result.success, seq * 10, seq)).isTrue();
  }

  /** Counts the calls that reach the handler. */
  private static final class CountingHandler extends BenchHandler {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public java.nio.ByteBuffer echo(java.nio.ByteBuffer payload) {
      calls.incrementAndGet();
      return super.echo(payload);
    }
  }

  /** Serving: {@code 200} with a tiny body, the connection kept, no call made or counted. */
  @Test
  void servingIsAnswered200WithoutACall() throws Exception {
    CountingHandler handler = new CountingHandler();
    ThriftServer server = start(handler);
    RawConnection raw = raw(server);
    for (int i = 0; i < 3; i++) {
      RawConnection.HttpAnswer ok = raw.write(PROBE).readHttpResponse();
      assertThat(ok.status()).as(ok.head()).isEqualTo(200);
      assertThat(new String(ok.body(), StandardCharsets.UTF_8)).isEqualTo("serving\n");
      assertThat(ok.header("Connection")).as("kept alive").isNull();
    }
    ServerStats stats = server.stats();
    assertThat(handler.calls).hasValue(0);
    assertThat(stats.completedCalls() + stats.failedCalls()).as("no call counted").isZero();
    assertThat(stats.badFrames()).as("not a refused request").isZero();
    raw.write(postEcho(new TBinaryProtocol.Factory(), 1));
    assertEchoReply(raw.readHttpResponse(), 1);
    assertThat(handler.calls).hasValue(1);
  }

  /**
   * Draining: once {@code close()} began, the probe is {@code 503} on a new connection and on one
   * already open, while a call in flight is still answered; here the close is held before the
   * listening socket closes by a before-drain hook (where a server leaves its registry).
   */
  @Test
  void drainingIsAnswered503WhileACallInFlightFinishes() throws Exception {
    // An async handler holds the call in flight without holding a thread, on every strategy.
    CompletableFuture<AsyncMethodCallback<Void>> held = new CompletableFuture<>();
    AsyncBenchHandler handler =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> cb) {
            held.complete(cb);
          }
        };
    ThriftServer server =
        start(builder().asyncProcessor(new BenchService.AsyncProcessor<>(handler)));
    RawConnection probe = raw(server);
    assertThat(probe.write(PROBE).readHttpResponse().status()).isEqualTo(200);
    RawConnection inFlight = raw(server);
    byte[] sleep =
        RawConnection.encodeCall(
            new TBinaryProtocol.Factory(), "sleep", 7, new BenchService.sleep_args(1));
    inFlight.writeFrame(sleep);
    AsyncMethodCallback<Void> inFlightCall = held.get(10, TimeUnit.SECONDS);

    CountDownLatch hookEntered = new CountDownLatch(1);
    CountDownLatch releaseHook = new CountDownLatch(1);
    assertThat(
            server.beforeDrain(
                () -> {
                  hookEntered.countDown();
                  try {
                    releaseHook.await(30, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // restored; the close goes on
                  }
                }))
        .isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
    assertThat(hookEntered.await(10, TimeUnit.SECONDS)).isTrue();

    RawConnection.HttpAnswer fresh = raw(server).write(PROBE).readHttpResponse();
    assertThat(fresh.status()).as(fresh.head()).isEqualTo(503);
    assertThat(new String(fresh.body(), StandardCharsets.UTF_8)).isEqualTo("draining\n");
    assertThat(probe.write(PROBE).readHttpResponse().status()).isEqualTo(503);

    releaseHook.countDown();
    inFlightCall.onComplete(null);
    byte[] reply = inFlight.readFrame();
    TMessage m =
        RawConnection.decodeReply(
            new TBinaryProtocol.Factory(), reply, new BenchService.sleep_result());
    assertThat(m.type).as("the call in flight is answered").isEqualTo(TMessageType.REPLY);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(server.stats().failedCalls()).isZero();
    assertThat(server.stats().badFrames()).isZero();
  }

  /**
   * The drain proper, held open by a call in flight: the listening socket stays open for probes
   * only. A new connection's {@code GET /health} is {@code 503} and closed after it; a new
   * connection's framed call or other HTTP request is closed at once, never served; one that sends
   * nothing is closed by the drain's end; the call in flight is answered; once the drain is over,
   * connecting is refused.
   */
  @Test
  void theDrainAnswersProbes503UntilItEndsAndServesNothingElse() throws Exception {
    CompletableFuture<AsyncMethodCallback<Void>> held = new CompletableFuture<>();
    AtomicInteger echoes = new AtomicInteger();
    AsyncBenchHandler handler =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> cb) {
            held.complete(cb); // the slow call: answered when the test releases it
          }

          @Override
          public void echo(
              java.nio.ByteBuffer payload, AsyncMethodCallback<java.nio.ByteBuffer> cb) {
            echoes.incrementAndGet();
            super.echo(payload, cb);
          }
        };
    ThriftServer server =
        start(builder().asyncProcessor(new BenchService.AsyncProcessor<>(handler)));
    InetSocketAddress address = server.localAddress();
    RawConnection before = raw(server);
    RawConnection.HttpAnswer serving = before.write(PROBE).readHttpResponse();
    assertThat(serving.status()).as(serving.head()).isEqualTo(200);
    RawConnection inFlight = raw(server);
    inFlight.writeFrame(
        RawConnection.encodeCall(
            new TBinaryProtocol.Factory(), "sleep", 7, new BenchService.sleep_args(1)));
    AsyncMethodCallback<Void> slowCall = held.get(10, TimeUnit.SECONDS);

    CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
    // The drain proper has begun once it closed the idle keep-alive connection it found (one
    // still in the accept queue when the close began would be a probe connection instead).
    before.awaitClosedBy(Duration.ofSeconds(10));
    assertThat(closing).as("held open by the call in flight").isNotDone();

    RawConnection probe = raw(server);
    RawConnection.HttpAnswer draining = probe.write(PROBE).readHttpResponse();
    assertThat(draining.status()).as(draining.head()).isEqualTo(503);
    assertThat(new String(draining.body(), StandardCharsets.UTF_8)).isEqualTo("draining\n");
    assertThat(draining.header("Connection")).isEqualToIgnoringCase("close");
    assertThat(probe.awaitClosedBy(Duration.ofSeconds(10))).as("one answer, then closed").isEmpty();
    RawConnection.HttpAnswer again = raw(server).write(PROBE).readHttpResponse();
    assertThat(again.status()).as("every probe of the drain").isEqualTo(503);

    RawConnection framedCall = raw(server);
    framedCall.writeFrame(
        RawConnection.encodeCall(
            new TBinaryProtocol.Factory(),
            "echo",
            8,
            new BenchService.echo_args(Payloads.of(10, 8))));
    assertThat(framedCall.awaitClosedBy(Duration.ofSeconds(10)))
        .as("a new connection's call is closed at once, unanswered")
        .isEmpty();
    RawConnection httpCall = raw(server);
    httpCall.write(postEcho(new TBinaryProtocol.Factory(), 9));
    assertThat(httpCall.awaitClosedBy(Duration.ofSeconds(10)))
        .as("a new connection's HTTP call is closed at once, unanswered")
        .isEmpty();
    long acceptedBefore = server.stats().acceptedConnections();
    RawConnection silent = raw(server);
    // Admitted (a probe connection) before the drain ends: a connection still being accepted as
    // the listener closes is another matter, which this test does not try to time.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.stats().acceptedConnections() == acceptedBefore) {
      assertThat(System.nanoTime()).as("the silent connection admitted").isLessThan(deadline);
      Thread.sleep(5); // polling a counter
    }
    assertThat(closing).as("probe connections do not hold the drain").isNotDone();

    slowCall.onComplete(null);
    TMessage reply =
        RawConnection.decodeReply(
            new TBinaryProtocol.Factory(), inFlight.readFrame(), new BenchService.sleep_result());
    assertThat(reply.type).as("the call in flight is answered").isEqualTo(TMessageType.REPLY);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(silent.awaitClosedBy(Duration.ofSeconds(10)))
        .as("a silent probe connection ends with the drain")
        .isEmpty();
    assertThat(catchThrowable(() -> RawConnection.open(address).close()))
        .as("the listening socket is closed once the drain is over")
        .isInstanceOf(ConnectException.class);
    assertThat(echoes).as("nothing served on connections accepted during the drain").hasValue(0);
    ServerStats stats = server.stats();
    assertThat(stats.failedCalls()).isZero();
    assertThat(stats.badFrames()).as("a drain's refusals are not the peers' faults").isZero();
  }

  /**
   * Once {@code close()} returns, nobody can connect: the listening socket, kept open for probes
   * during the drain, is closed in the kernel by then, not merely scheduled to close (a socket
   * registered with a selector stays open until that selector's next selection). Repeated: the gap,
   * where there is one, lasts microseconds.
   */
  @Test
  void onceCloseReturnsTheListeningSocketRefusesConnects() throws Exception {
    for (int i = 0; i < 30; i++) {
      ThriftServer server = start(new CountingHandler());
      InetSocketAddress address = server.localAddress();
      RawConnection probe = raw(server);
      assertThat(probe.write(PROBE).readHttpResponse().status()).isEqualTo(200);
      RawConnection silent = raw(server); // closed by the drain's end
      server.close();
      assertThat(catchThrowable(() -> RawConnection.open(address).close()))
          .as("a connect after close() returned, round %d", i)
          .isInstanceOf(ConnectException.class);
      assertThat(silent.awaitClosedBy(Duration.ofSeconds(10))).isEmpty();
    }
  }

  /** Another path or method is answered as without a probe: {@code 405}, counted as before. */
  @Test
  void otherGetsAreAnsweredAsBefore() throws Exception {
    ThriftServer server = start(new CountingHandler());
    RawConnection raw = raw(server);
    RawConnection.HttpAnswer onCalls =
        raw.write(ascii("GET " + PATH + " HTTP/1.1\r\nHost: x\r\n\r\n")).readHttpResponse();
    assertThat(onCalls.status()).isEqualTo(405);
    assertThat(onCalls.header("Allow")).isEqualTo("POST");
    RawConnection.HttpAnswer elsewhere =
        raw.write(ascii("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")).readHttpResponse();
    assertThat(elsewhere.status()).isEqualTo(405);
    assertThat(raw.write(PROBE).readHttpResponse().status()).isEqualTo(200);
    assertThat(server.stats().badFrames()).isEqualTo(2);
  }
}
