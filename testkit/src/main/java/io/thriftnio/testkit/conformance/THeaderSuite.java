package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server accepting {@link WireKind#HEADER} beside framed, over real sockets: THeader requests
 * written by hand from Apache Thrift's {@code HeaderFormat.md} (binary and compact, switching
 * between calls on one connection; zlib on and off; an info header read by the handler; pipelined),
 * answered in the caller's protocol and transforms; a framed peer on the same port unchanged; an
 * HTTP peer's header fields read through the same {@code headers()}; a zlib bomb and an HMAC
 * transform answered with an error and closed. A transport runs it once per strategy, one {@link
 * ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.PROTOCOLS)
public abstract class THeaderSuite extends ServerCellSuite {

  private static final Duration CLOSE_WITHIN = Duration.ofSeconds(10);
  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();
  private static final int MAX = 64 * 1024;

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> clients = new ArrayList<>();

  /** Echoes, except that a call carrying the info header {@code x-echo} gets its value back. */
  private static final class HeaderEchoHandler extends BenchHandler {
    @Override
    public ByteBuffer echo(ByteBuffer payload) {
      String echoed = ServerCallContext.current().headers().get("x-echo");
      return echoed != null
          ? ByteBuffer.wrap(echoed.getBytes(StandardCharsets.UTF_8))
          : super.echo(payload);
    }
  }

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  /** A binary server accepting framed, THeader and HTTP peers on one port. */
  private ThriftServer start() throws Exception {
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(new HeaderEchoHandler()))
            .protocol(BINARY)
            .ioStrategy(strategy())
            .maxFrameSize(MAX)
            .wireKinds(WireKind.FRAMED, WireKind.HEADER, WireKind.HTTP)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    servers.add(server);
    return server.start();
  }

  private RawConnection raw(ThriftServer server) throws Exception {
    RawConnection raw = RawConnection.open(server.localAddress());
    clients.add(raw);
    return raw;
  }

  private static byte[] echoCall(TProtocolFactory protocol, int seqid, byte[] payload)
      throws Exception {
    return RawConnection.encodeCall(
        protocol, "echo", seqid, new BenchService.echo_args(ByteBuffer.wrap(payload)));
  }

  private static byte[] bytes(int size, long seed) {
    ByteBuffer b = Payloads.of(size, seed);
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }

  /** Reads one THeader reply off {@code raw}. */
  private static THeaderFrames.Reply readReply(RawConnection raw) throws Exception {
    byte[] payload = raw.readFrame();
    return THeaderFrames.read(RawConnection.frame(payload));
  }

  private static byte[] echoed(TProtocolFactory protocol, THeaderFrames.Reply reply, int seqid)
      throws Exception {
    BenchService.echo_result result = new BenchService.echo_result();
    TMessage header = RawConnection.decodeReply(protocol, reply.message, result);
    assertThat(header.seqid).isEqualTo(seqid);
    return result.getSuccess();
  }

  @Test
  void callsSwitchingProtocolAndZlibOnOneConnectionAreAnsweredAsEachCame() throws Exception {
    RawConnection raw = raw(start());
    TProtocolFactory[] protocols = {BINARY, COMPACT, COMPACT, BINARY};
    int[] ids = {0, 2, 2, 0};
    for (int i = 0; i < protocols.length; i++) {
      byte[] payload = bytes(100 * i + 10, i);
      boolean zlib = i % 2 == 1;
      THeaderFrames request = THeaderFrames.request().protocol(ids[i]).seqId(100 + i).flags(i);
      if (zlib) {
        request.transform(1);
      }
      raw.write(request.frame(echoCall(protocols[i], i + 1, payload)));

      THeaderFrames.Reply reply = readReply(raw);
      assertThat(reply.protocolId).as("call %d's protocol id", i).isEqualTo(ids[i]);
      assertThat(reply.seqId).isEqualTo(100 + i);
      assertThat(reply.flags).isEqualTo(i);
      assertThat(reply.transforms).isEqualTo(zlib ? List.of(1) : List.of());
      assertThat(echoed(protocols[i], reply, i + 1)).isEqualTo(payload);
    }
  }

  @Test
  void theHandlerReadsTheRequestsInfoHeaders() throws Exception {
    RawConnection raw = raw(start());
    raw.write(
        THeaderFrames.request()
            .protocol(2)
            .header("x-echo", "from the header")
            .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            .frame(echoCall(COMPACT, 1, new byte[] {1, 2, 3})));
    byte[] echoed = echoed(COMPACT, readReply(raw), 1);
    assertThat(new String(echoed, StandardCharsets.UTF_8)).isEqualTo("from the header");
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    RawConnection raw = raw(start());
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int i = 0; i < 10; i++) {
      THeaderFrames request = THeaderFrames.request().protocol(i % 2 * 2).seqId(i);
      if (i % 3 == 0) {
        request.transform(1);
      }
      batch.writeBytes(request.frame(echoCall(i % 2 == 0 ? BINARY : COMPACT, i, bytes(50, i))));
    }
    raw.write(batch.toByteArray());
    for (int i = 0; i < 10; i++) {
      THeaderFrames.Reply reply = readReply(raw);
      assertThat(reply.seqId).isEqualTo(i);
      assertThat(echoed(i % 2 == 0 ? BINARY : COMPACT, reply, i)).isEqualTo(bytes(50, i));
    }
  }

  @Test
  void theaderInsideFramedFramesIsAnsweredInsideFramedFrames() throws Exception {
    // Apache's test client with --protocol header --transport framed stacks THeader on framed.
    ThriftServer server = start();
    RawConnection raw = raw(server);
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int i = 0; i < 3; i++) {
      THeaderFrames request = THeaderFrames.request().protocol(i % 2 * 2).seqId(40 + i);
      if (i == 2) {
        request.transform(1);
      }
      byte[] inner = request.frame(echoCall(i % 2 == 0 ? BINARY : COMPACT, i, bytes(70, i)));
      batch.writeBytes(RawConnection.frame(inner));
    }
    raw.write(batch.toByteArray());
    for (int i = 0; i < 3; i++) {
      byte[] inner = raw.readFrame(); // the outer frame's payload: a whole THeader frame
      THeaderFrames.Reply reply = THeaderFrames.read(inner);
      assertThat(reply.seqId).isEqualTo(40 + i);
      assertThat(reply.transforms).isEqualTo(i == 2 ? List.of(1) : List.of());
      assertThat(echoed(i % 2 == 0 ? BINARY : COMPACT, reply, i)).isEqualTo(bytes(70, i));
    }
    assertThat(server.stats().badFrames()).isZero();
  }

  @Test
  void anOuterFrameWhoseTHeaderLengthLiesIsRefusedAndClosed() throws Exception {
    ThriftServer server = start();
    RawConnection raw = raw(server);
    byte[] inner = THeaderFrames.request().frame(echoCall(BINARY, 1, bytes(20, 1)));
    byte[] outer = RawConnection.frame(inner);
    raw.write(outer);
    raw.readFrame(); // the first is answered
    ByteBuffer lying = ByteBuffer.wrap(outer.clone());
    lying.putInt(Integer.BYTES, inner.length - Integer.BYTES + 1); // one more than the frame holds
    raw.write(lying.array());
    assertThat(raw.awaitClosedBy(Duration.ofSeconds(10))).isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  @Test
  void aFramedPeerOnTheSamePortSeesNothingNew() throws Exception {
    ThriftServer server = start();
    InetSocketAddress a = server.localAddress();
    TTransport t = new TFramedTransport(new TSocket(a.getHostString(), a.getPort(), 30_000));
    t.open();
    clients.add(t::close);
    BenchService.Client client = new BenchService.Client(BINARY.getProtocol(t));
    byte[] payload = bytes(1000, 7);
    assertThat(client.echo(ByteBuffer.wrap(payload))).isEqualTo(ByteBuffer.wrap(payload));
  }

  @Test
  void anHttpCallsHeaderFieldsReachTheHandlerThroughTheSameApi() throws Exception {
    InetSocketAddress a = start().localAddress();
    THttpClient http = new THttpClient("http://" + a.getHostString() + ":" + a.getPort() + "/");
    http.setCustomHeader("X-Echo", "from an HTTP field");
    clients.add(http::close);
    BenchService.Client client = new BenchService.Client(BINARY.getProtocol(http));
    ByteBuffer echoed = client.echo(ByteBuffer.wrap(new byte[] {1}));
    assertThat(StandardCharsets.UTF_8.decode(echoed).toString()).isEqualTo("from an HTTP field");
  }

  @Test
  void aZlibBombIsAnsweredWithAnErrorToItsSeqidAndClosed() throws Exception {
    ThriftServer server = start();
    RawConnection raw = raw(server);
    byte[] bomb = THeaderFrames.request().seqId(42).transform(1).frame(new byte[MAX * 4]);
    assertThat(bomb.length).isLessThan(MAX / 10);
    raw.write(bomb);

    THeaderFrames.Reply reply = readReply(raw);
    assertThat(reply.seqId).isEqualTo(42);
    assertThatThrownBy(() -> echoed(BINARY, reply, 42))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR))
        .hasMessageContaining("inflates past maxFrameSize " + MAX);
    raw.awaitClosedBy(CLOSE_WITHIN);
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  @Test
  void anHmacTransformIsAnsweredWithAnErrorNamingItAndClosed() throws Exception {
    RawConnection raw = raw(start());
    raw.write(
        THeaderFrames.request()
            .protocol(2)
            .seqId(5)
            .transform(2)
            .frame(echoCall(COMPACT, 5, new byte[] {1})));

    THeaderFrames.Reply reply = readReply(raw);
    assertThat(reply.protocolId).isEqualTo(2);
    assertThatThrownBy(() -> echoed(COMPACT, reply, 5))
        .isInstanceOf(TApplicationException.class)
        .hasMessageContaining("transform 2 (HMAC) not supported");
    raw.awaitClosedBy(CLOSE_WITHIN);
  }
}
