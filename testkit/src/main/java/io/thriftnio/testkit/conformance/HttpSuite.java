package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a server accepting {@link WireKind#HTTP} does beyond the {@link ConformanceSuite} (which a
 * transport also runs with {@link ClientKinds#stockHttp}): pipelined requests read off a raw
 * socket, chunked bodies, {@code Expect: 100-continue}, keep-alive and {@code Connection: close},
 * the status codes of refused requests, hostile input (a huge or negative {@code Content-Length}, a
 * header section that never ends, a slow-loris request line), and framed, unframed and HTTP peers
 * on one port at once. A transport runs it once per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.IO_PATHS)
public abstract class HttpSuite extends ServerCellSuite {

  private static final Duration CLOSE_WITHIN = Duration.ofSeconds(10);
  private static final String PATH = "/thrift";
  private static final int LIMIT = 64 * 1024;

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

  /** A server accepting every transport, HTTP on {@value #PATH}, at most {@value #LIMIT} bytes. */
  protected ServerBuilder<?> builder(TProtocolFactory protocol, BenchService.Iface handler) {
    return newServerBuilder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(protocol)
        .ioStrategy(strategy())
        .maxFrameSize(LIMIT)
        .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED, WireKind.HTTP)
        .httpPath(PATH)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private ThriftServer start(ServerBuilder<?> builder) throws Exception {
    ThriftServer server = builder.build();
    servers.add(server);
    return server.start();
  }

  private ThriftServer start() throws Exception {
    return start(builder(new TBinaryProtocol.Factory(), new BenchHandler()));
  }

  private RawConnection raw(ThriftServer server) throws Exception {
    RawConnection raw = RawConnection.open(server.localAddress());
    clients.add(raw);
    return raw;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static byte[] post(String headers, byte[] body) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(
        ascii(
            "POST "
                + PATH
                + " HTTP/1.1\r\nHost: test\r\nContent-Length: "
                + body.length
                + "\r\n"
                + headers
                + "\r\n"));
    out.write(body);
    return out.toByteArray();
  }

  private static byte[] echoCall(TProtocolFactory protocol, int seq) throws Exception {
    return RawConnection.encodeCall(
        protocol, "echo", seq, new BenchService.echo_args(Payloads.of(seq * 10, seq)));
  }

  private static void assertEchoReply(
      TProtocolFactory protocol, RawConnection.HttpAnswer answer, int seq) throws Exception {
    assertThat(answer.status()).as(answer.head()).isEqualTo(200);
    BenchService.echo_result result = new BenchService.echo_result();
    TMessage reply = RawConnection.decodeReply(protocol, answer.body(), result);
    assertThat(reply.seqid).isEqualTo(seq);
    assertThat(reply.type).isEqualTo(TMessageType.REPLY);
    assertThat(Payloads.check(result.success, seq * 10, seq)).isTrue();
  }

  /** The server still answers a fresh HTTP client: a hostile peer has not disturbed it. */
  private static void assertServesOthers(ThriftServer server) throws Exception {
    InetSocketAddress a = server.localAddress();
    THttpClient http = new THttpClient("http://" + a.getHostString() + ":" + a.getPort() + PATH);
    try {
      BenchService.Client client = new BenchService.Client(new TBinaryProtocol(http));
      assertThat(client.get_last_sale("other").getSymbol()).isEqualTo("other");
    } finally {
      http.close();
    }
  }

  // ---- calls ------------------------------------------------------------------------------------

  /**
   * Fifty requests and oneway calls in one write: the answers come back in request order, each a
   * {@code 200}, empty for the oneway calls; the connection stays open.
   */
  @Test
  void answersPipelinedRequestsInOrder() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    BenchHandler handler = new BenchHandler();
    ThriftServer server = start(builder(protocol, handler));
    RawConnection raw = raw(server);
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int seq = 1; seq <= 50; seq++) {
      batch.write(post("", echoCall(protocol, seq)));
      if (seq % 10 == 0) {
        byte[] fire =
            RawConnection.encodeCall(
                protocol,
                "fire",
                TMessageType.ONEWAY,
                1000 + seq,
                new BenchService.fire_args(Payloads.of(8, seq)));
        batch.write(post("", fire));
      }
    }
    raw.write(batch.toByteArray());
    for (int seq = 1; seq <= 50; seq++) {
      RawConnection.HttpAnswer answer = raw.readHttpResponse();
      assertEchoReply(protocol, answer, seq);
      assertThat(answer.header("Content-Type")).isEqualTo("application/x-thrift");
      assertThat(answer.header("Connection")).isNull();
      if (seq % 10 == 0) {
        RawConnection.HttpAnswer oneway = raw.readHttpResponse();
        assertThat(oneway.status()).isEqualTo(200);
        assertThat(oneway.body()).isEmpty();
      }
    }
    await("5 oneway calls to reach the handler")
        .atMost(CLOSE_WITHIN)
        .until(() -> handler.fired() == 5);
    raw.write(post("", echoCall(protocol, 51)));
    assertEchoReply(protocol, raw.readHttpResponse(), 51);
  }

  /** A chunked body and a request sent one byte per write are served. */
  @Test
  void servesChunkedBodiesAndRequestsSentOneBytePerWrite() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start();
    RawConnection raw = raw(server);
    byte[] call = echoCall(protocol, 1);
    ByteArrayOutputStream chunked = new ByteArrayOutputStream();
    chunked.write(ascii("POST " + PATH + " HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
    int half = call.length / 2;
    chunked.write(ascii(Integer.toHexString(half) + "\r\n"));
    chunked.write(call, 0, half);
    chunked.write(ascii("\r\n" + Integer.toHexString(call.length - half) + ";x=y\r\n"));
    chunked.write(call, half, call.length - half);
    chunked.write(ascii("\r\n0\r\n\r\n"));
    raw.write(chunked.toByteArray());
    assertEchoReply(protocol, raw.readHttpResponse(), 1);
    for (byte b : post("", echoCall(protocol, 2))) {
      raw.write(new byte[] {b});
    }
    assertEchoReply(protocol, raw.readHttpResponse(), 2);
  }

  /**
   * {@code Expect: 100-continue}: {@code 100 Continue} before the body is sent, then the answer.
   */
  @Test
  void sendsContinueBeforeTheBody() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start();
    RawConnection raw = raw(server);
    byte[] call = echoCall(protocol, 7);
    raw.write(
        ascii(
            "POST "
                + PATH
                + " HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: "
                + call.length
                + "\r\n\r\n"));
    RawConnection.HttpAnswer interim = raw.readHttpResponse();
    assertThat(interim.status()).isEqualTo(100);
    raw.write(call);
    assertEchoReply(protocol, raw.readHttpResponse(), 7);
  }

  /** The request's protocol content type is echoed; {@code Connection: close} is honoured. */
  @Test
  void echoesThriftContentTypesAndClosesWhenAsked() throws Exception {
    TProtocolFactory protocol = new TCompactProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()));
    RawConnection raw = raw(server);
    raw.write(
        post(
            "Content-Type: application/vnd.apache.thrift.compact\r\nConnection: close\r\n",
            echoCall(protocol, 3)));
    RawConnection.HttpAnswer answer = raw.readHttpResponse();
    assertEchoReply(protocol, answer, 3);
    assertThat(answer.header("Content-Type")).isEqualTo("application/vnd.apache.thrift.compact");
    assertThat(answer.header("Connection")).isEqualTo("close");
    assertThat(raw.awaitClosedBy(CLOSE_WITHIN)).isEmpty();
  }

  /** Another method is {@code 405}, another path {@code 404}; the connection stays usable. */
  @Test
  void refusesOtherMethodsAndPathsAndKeepsTheConnection() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start();
    RawConnection raw = raw(server);
    raw.write(ascii("GET " + PATH + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    RawConnection.HttpAnswer get = raw.readHttpResponse();
    assertThat(get.status()).isEqualTo(405);
    assertThat(get.header("Allow")).isEqualTo("POST");
    raw.write(ascii("POST /elsewhere HTTP/1.1\r\nContent-Length: 0\r\n\r\n"));
    assertThat(raw.readHttpResponse().status()).isEqualTo(404);
    raw.write(post("", echoCall(protocol, 4)));
    assertEchoReply(protocol, raw.readHttpResponse(), 4);
    assertThat(server.stats().badFrames()).isEqualTo(2);
  }

  // ---- hostile input ----------------------------------------------------------------------------

  /**
   * A huge {@code Content-Length} is {@code 413} at once, without waiting for or storing a body.
   */
  @Test
  void refusesAHugeContentLengthWith413AndCloses() throws Exception {
    ThriftServer server = start();
    RawConnection raw = raw(server);
    raw.write(ascii("POST " + PATH + " HTTP/1.1\r\nContent-Length: 2000000000\r\n\r\n"));
    RawConnection.HttpAnswer answer = raw.readHttpResponse();
    assertThat(answer.status()).isEqualTo(413);
    assertThat(new String(answer.body(), StandardCharsets.UTF_8))
        .contains("2000000000")
        .contains(Integer.toString(LIMIT));
    assertThat(raw.awaitClosedBy(CLOSE_WITHIN)).isEmpty();
    assertServesOthers(server);
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  /** A body of exactly {@code maxFrameSize} bytes is served; one byte more is {@code 413}. */
  @Test
  void bodyLimitIsMaxFrameSize() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    BenchHandler handler = new BenchHandler();
    ThriftServer server = start(builder(protocol, handler));
    int overhead = fire(protocol, 0).length;
    byte[] atLimit = fire(protocol, LIMIT - overhead);
    assertThat(atLimit).hasSize(LIMIT);
    RawConnection raw = raw(server);
    raw.write(post("", atLimit));
    RawConnection.HttpAnswer answer = raw.readHttpResponse();
    assertThat(answer.status()).as("a oneway call at the limit").isEqualTo(200);
    assertThat(answer.body()).isEmpty();
    await("the oneway call to reach the handler")
        .atMost(CLOSE_WITHIN)
        .until(() -> handler.fired() == 1);
    RawConnection over = raw(server);
    over.write(ascii("POST " + PATH + " HTTP/1.1\r\nContent-Length: " + (LIMIT + 1) + "\r\n\r\n"));
    assertThat(over.readHttpResponse().status()).isEqualTo(413);
  }

  private static byte[] fire(TProtocolFactory protocol, int payload) throws Exception {
    return RawConnection.encodeCall(
        protocol,
        "fire",
        TMessageType.ONEWAY,
        1,
        new BenchService.fire_args(java.nio.ByteBuffer.wrap(new byte[payload])));
  }

  /** A negative {@code Content-Length} is {@code 400}, then the connection closes. */
  @Test
  void refusesANegativeContentLengthWith400AndCloses() throws Exception {
    ThriftServer server = start();
    RawConnection raw = raw(server);
    raw.write(ascii("POST " + PATH + " HTTP/1.1\r\nContent-Length: -1\r\n\r\n"));
    assertThat(raw.readHttpResponse().status()).isEqualTo(400);
    assertThat(raw.awaitClosedBy(CLOSE_WITHIN)).isEmpty();
    assertServesOthers(server);
  }

  /** A header section that never ends is {@code 431} once it passes its bound, then closed. */
  @Test
  void refusesAHeaderSectionThatNeverEnds() throws Exception {
    ThriftServer server = start();
    RawConnection raw = raw(server);
    raw.write(ascii("POST " + PATH + " HTTP/1.1\r\n"));
    String field = "X-Filler: " + "v".repeat(1000) + "\r\n";
    RawConnection.HttpAnswer answer = null;
    try {
      for (int i = 0; i < 200; i++) {
        raw.write(ascii(field));
      }
    } catch (java.io.IOException closedWhileWriting) {
      // The server refused and closed while the rest was on its way: expected.
    }
    answer = raw.readHttpResponse();
    assertThat(answer.status()).isEqualTo(431);
    assertServesOthers(server);
  }

  /** A request line that trickles in slower than {@code frameTimeout} is closed. */
  @Test
  void closesASlowLorisRequestLine() throws Exception {
    ThriftServer server =
        start(
            builder(new TBinaryProtocol.Factory(), new BenchHandler())
                .frameTimeout(Duration.ofMillis(300)));
    RawConnection raw = raw(server);
    raw.write(ascii("POST " + PATH));
    raw.awaitClosedBy(CLOSE_WITHIN);
    assertServesOthers(server);
  }

  /** A malformed request is {@code 400}, then the connection closes. */
  @Test
  void refusesAMalformedRequestWith400() throws Exception {
    ThriftServer server = start();
    RawConnection raw = raw(server);
    raw.write(ascii("POST  " + PATH + " HTTP/1.1\r\n\r\n"));
    assertThat(raw.readHttpResponse().status()).isEqualTo(400);
    assertThat(raw.awaitClosedBy(CLOSE_WITHIN)).isEmpty();
  }

  // ---- detection --------------------------------------------------------------------------------

  /** A framed, an unframed and an HTTP client call one port at the same time. */
  @Test
  void framedUnframedAndHttpClientsShareOnePort() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()));
    InetSocketAddress a = server.localAddress();
    List<Callable<Integer>> peers = new ArrayList<>();
    for (String kind : new String[] {"framed", "unframed", "http"}) {
      peers.add(
          () -> {
            TTransport t;
            if (kind.equals("http")) {
              t = new THttpClient("http://" + a.getHostString() + ":" + a.getPort() + PATH);
            } else {
              t = new TSocket(a.getHostString(), a.getPort(), 30_000);
              if (kind.equals("framed")) {
                t = new TFramedTransport(t);
              }
            }
            t.open();
            try {
              BenchService.Client client = new BenchService.Client(protocol.getProtocol(t));
              for (int i = 0; i < 100; i++) {
                String symbol = kind + i;
                assertThat(client.get_last_sale(symbol).getSymbol()).isEqualTo(symbol);
              }
              return 100;
            } finally {
              t.close();
            }
          });
    }
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      int calls = 0;
      for (Future<Integer> f : pool.invokeAll(peers)) {
        calls += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(calls).isEqualTo(300);
    } finally {
      pool.shutdownNow();
    }
    assertThat(server.stats().completedCalls()).isEqualTo(300);
  }
}
