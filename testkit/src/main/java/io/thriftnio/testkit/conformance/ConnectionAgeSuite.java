package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.ConnectionEventsSuite.Event;
import io.thriftnio.testkit.conformance.ConnectionEventsSuite.Recorder;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's own connection age ({@link ServerBuilder#maxConnectionAge}, {@link
 * ServerBuilder#maxConnectionAgeGrace}), on every transport and strategy: an idle connection past
 * its age closes as {@link CloseCause#AGED}; a stock client calling back to back across the age
 * loses no call, and its connection closes only once quiet after it stops; a call in flight across
 * the age is answered and the connection closes once quiet after it; an HTTP reply after the age
 * says {@code Connection: close}; a grace closes a connection still busy; and a stock {@code
 * TSocket} client sees the close at its next call and reconnects. A transport runs it once per
 * strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.STRATEGIES)
public abstract class ConnectionAgeSuite extends ServerCellSuite {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final String PATH = "/thrift";

  /** Short enough for a test, long enough that a first call comes well before it (90%: 0.9 s). */
  private static final Duration AGE = Duration.ofSeconds(1);

  private static final Duration WAIT = Duration.ofSeconds(10);

  /** How long an aged connection must be quiet before the server closes it (core's constant). */
  private static final Duration QUIET = Duration.ofSeconds(1);

  /** Room for a loaded machine and Grizzly's sweep (a quarter of the age) on top of the quiet. */
  private static final Duration SLACK = Duration.ofSeconds(2);

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

  private ServerBuilder<?> builder(Recorder recorder) {
    return newServerBuilder()
        .ioStrategy(strategy())
        .protocol(PROTOCOL)
        .maxConnectionAge(AGE)
        .connectionListener(recorder)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private ThriftServer start(ServerBuilder<?> builder) throws IOException {
    ThriftServer server = builder.build();
    servers.add(server);
    return server.start();
  }

  private RawConnection raw(ThriftServer server) throws IOException {
    RawConnection raw = RawConnection.open(server.localAddress());
    clients.add(raw);
    return raw;
  }

  /** An async handler whose {@code sleep} calls stay in flight until the test completes them. */
  private static final class HeldSleep extends AsyncBenchHandler {
    final BlockingQueue<AsyncMethodCallback<Void>> held = new LinkedBlockingQueue<>();

    @Override
    public void sleep(int millis, AsyncMethodCallback<Void> cb) {
      held.add(cb);
    }

    /** The next call to arrive, still in flight. */
    AsyncMethodCallback<Void> next() throws InterruptedException {
      AsyncMethodCallback<Void> call = held.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(call).as("a sleep call within %s", WAIT).isNotNull();
      return call;
    }
  }

  /**
   * Waits until a connection opened at {@code openedNanos} is past its age: 110% of it (the
   * jitter's bound), plus half of it for Grizzly's sweep, which runs every quarter of it. A call in
   * flight hides the age from the wire (that is the behaviour under test), so only the clock can
   * say it has passed; what the test then asserts is an event, not an absence.
   */
  private static void awaitPastAge(long openedNanos) throws InterruptedException {
    long left = openedNanos + AGE.toNanos() * 16 / 10 - System.nanoTime();
    assertThat(new CountDownLatch(1).await(Math.max(0, left), TimeUnit.NANOSECONDS)).isFalse();
  }

  private static Event nextClose(Recorder recorder) throws InterruptedException {
    Event e;
    do {
      e = recorder.next();
    } while (!e.kind().equals("close"));
    return e;
  }

  private static byte[] sleepCall(int seq) throws Exception {
    return RawConnection.encodeCall(PROTOCOL, "sleep", seq, new BenchService.sleep_args(1));
  }

  private static void assertSleepReply(byte[] reply, int seq) throws Exception {
    TMessage m = RawConnection.decodeReply(PROTOCOL, reply, new BenchService.sleep_result());
    assertThat(m.type).as("a reply, intact").isEqualTo(TMessageType.REPLY);
    assertThat(m.seqid).isEqualTo(seq);
  }

  @Test
  void anIdleConnectionPastItsAgeClosesAsAged() throws Exception {
    Recorder recorder = new Recorder();
    ThriftServer server =
        start(builder(recorder).processor(new BenchService.Processor<>(new BenchHandler())));
    long opened = System.nanoTime();
    try (StockClient c = new StockClient(server.localAddress())) {
      assertThat(Payloads.check(c.client.echo(Payloads.of(100, 1)), 100, 1)).isTrue();
      Event close = nextClose(recorder);
      long lived = System.nanoTime() - opened;
      assertThat(close.cause()).isEqualTo(CloseCause.AGED);
      assertThat(lived)
          .as("lived at least 90%% of its age")
          .isGreaterThanOrEqualTo(AGE.toNanos() * 9 / 10);
    }
    ServerStats stats = server.stats();
    assertThat(stats.agedConnections()).isEqualTo(1);
    assertThat(stats.timedOutConnections()).as("an age is not a timeout").isZero();
  }

  @Test
  void aStockClientCallingBackToBackLosesNoCallAndItsConnectionClosesOnlyOnceQuiet()
      throws Exception {
    Recorder recorder = new Recorder();
    ThriftServer server =
        start(builder(recorder).processor(new BenchService.Processor<>(new BenchHandler())));
    long opened = System.nanoTime();
    long until = opened + AGE.toNanos() * 5 / 2; // well past the age's 110% bound
    int calls = 0;
    long stopped;
    try (StockClient c = new StockClient(server.localAddress())) {
      // No pause between a reply and the next request: closing at an idle moment would fail one.
      do {
        int seq = calls++;
        assertThat(Payloads.check(c.client.echo(Payloads.of(100, seq)), 100, seq))
            .as("call %d, %d ms after the connection opened", seq, millisSince(opened))
            .isTrue();
      } while (System.nanoTime() - until < 0);
      stopped = System.nanoTime();
      assertThat(recorder.events)
          .as("the connection was not closed while it called (%d calls)", calls)
          .noneMatch(e -> e.kind().equals("close"));
      assertThat(server.stats().agedConnections()).isZero();

      Event close = nextClose(recorder);
      long quietFor = System.nanoTime() - stopped;
      assertThat(close.cause()).isEqualTo(CloseCause.AGED);
      assertThat(quietFor)
          .as("closed once quiet, not at its first idle moment")
          .isGreaterThanOrEqualTo(QUIET.toNanos() / 2)
          .isLessThanOrEqualTo(QUIET.plus(SLACK).toNanos());
    }
    assertThat(server.stats().agedConnections()).isEqualTo(1);
    assertThat(server.stats().acceptedConnections())
        .as("one connection for every call")
        .isEqualTo(1);
  }

  private static long millisSince(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }

  @Test
  void aCallInFlightAcrossTheAgeIsAnsweredThenTheConnectionClosesAsAged() throws Exception {
    Recorder recorder = new Recorder();
    HeldSleep handler = new HeldSleep();
    ThriftServer server =
        start(builder(recorder).asyncProcessor(new BenchService.AsyncProcessor<>(handler)));
    long opened = System.nanoTime();
    RawConnection c = raw(server);
    c.writeFrame(sleepCall(7));
    AsyncMethodCallback<Void> call = handler.next();
    awaitPastAge(opened);
    call.onComplete(null);
    assertSleepReply(c.readFrame(), 7);
    c.awaitClosedBy(WAIT);
    assertThat(nextClose(recorder).cause()).isEqualTo(CloseCause.AGED);
    assertThat(server.stats().droppedResponses()).isZero();
    assertThat(server.stats().agedConnections()).isEqualTo(1);
  }

  @Test
  void anHttpReplyAfterTheAgeSaysConnectionCloseAndTheConnectionCloses() throws Exception {
    Recorder recorder = new Recorder();
    HeldSleep handler = new HeldSleep();
    ThriftServer server =
        start(
            builder(recorder)
                .wireKinds(WireKind.HTTP)
                .httpPath(PATH)
                .asyncProcessor(new BenchService.AsyncProcessor<>(handler)));
    long opened = System.nanoTime();
    RawConnection c = raw(server);
    c.write(post(sleepCall(1)));
    handler.next().onComplete(null);
    RawConnection.HttpAnswer before = c.readHttpResponse();
    assertThat(before.status()).as(before.head()).isEqualTo(200);
    assertThat(before.header("Connection")).as("kept alive before the age").isNull();

    c.write(post(sleepCall(2)));
    AsyncMethodCallback<Void> call = handler.next();
    awaitPastAge(opened);
    call.onComplete(null);
    RawConnection.HttpAnswer after = c.readHttpResponse();
    assertThat(after.status()).as(after.head()).isEqualTo(200);
    assertThat(after.header("Connection")).isEqualToIgnoringCase("close");
    assertSleepReply(after.body(), 2);
    c.awaitClosedBy(WAIT);
    assertThat(nextClose(recorder).cause()).isEqualTo(CloseCause.AGED);
    assertThat(server.stats().agedConnections()).isEqualTo(1);
  }

  @Test
  void aConnectionStillBusyPastItsAgePlusTheGraceClosesAsAged() throws Exception {
    Recorder recorder = new Recorder();
    HeldSleep handler = new HeldSleep();
    ThriftServer server =
        start(
            builder(recorder)
                .maxConnectionAgeGrace(Duration.ofMillis(200))
                .asyncProcessor(new BenchService.AsyncProcessor<>(handler)));
    RawConnection c = raw(server);
    c.writeFrame(sleepCall(3));
    AsyncMethodCallback<Void> call = handler.next();
    Event close = nextClose(recorder); // with the call still in flight
    assertThat(close.cause()).isEqualTo(CloseCause.AGED);
    assertThat(c.awaitClosedBy(WAIT)).as("the call in flight got no reply").isEmpty();
    call.onComplete(null); // too late: its reply is dropped
    assertThat(server.stats().agedConnections()).isEqualTo(1);
  }

  @Test
  void aStockClientSeesTheCloseAtItsNextCallAndReconnects() throws Exception {
    Recorder recorder = new Recorder();
    ThriftServer server =
        start(builder(recorder).processor(new BenchService.Processor<>(new BenchHandler())));
    try (StockClient c = new StockClient(server.localAddress())) {
      assertThat(Payloads.check(c.client.echo(Payloads.of(100, 1)), 100, 1)).isTrue();
      assertThat(nextClose(recorder).cause()).isEqualTo(CloseCause.AGED);
      // The race the server setting leaves: the client learns of the close only by calling.
      assertThatThrownBy(() -> c.client.echo(Payloads.of(100, 2)))
          .isInstanceOf(TTransportException.class);
    }
    try (StockClient again = new StockClient(server.localAddress())) {
      assertThat(Payloads.check(again.client.echo(Payloads.of(100, 3)), 100, 3)).isTrue();
    }
  }

  private static byte[] post(byte[] body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(
        ("POST " + PATH + " HTTP/1.1\r\nHost: test\r\nContent-Length: " + body.length + "\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    return out.toByteArray();
  }

  /** A stock blocking client: {@code TSocket} and {@code TFramedTransport}. */
  private static final class StockClient implements AutoCloseable {
    final TSocket socket;
    final BenchService.Client client;

    StockClient(InetSocketAddress address) throws Exception {
      socket = new TSocket(address.getHostString(), address.getPort(), 10_000);
      TTransport framed = new TFramedTransport(socket);
      framed.open();
      client = new BenchService.Client(PROTOCOL.getProtocol(framed));
    }

    @Override
    public void close() {
      socket.close();
    }
  }
}
