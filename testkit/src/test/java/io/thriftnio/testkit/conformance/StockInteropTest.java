package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TradeReport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.TNonblockingServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The testkit's own client helpers against stock libthrift: {@link ClientKinds#stockSocket()} and
 * {@link RawConnection} talk to a {@code TThreadedSelectorServer} serving {@link BenchHandler}.
 */
@Timeout(60)
class StockInteropTest {

  private static TProtocolFactory protocol(String name) {
    return name.equals("binary") ? new TBinaryProtocol.Factory() : new TCompactProtocol.Factory();
  }

  /** A stock TThreadedSelectorServer on 127.0.0.1, port 0. */
  static final class StockServer implements AutoCloseable {
    final BenchHandler handler = new BenchHandler();
    final TThreadedSelectorServer server;
    final Thread thread;
    final InetSocketAddress address;

    StockServer(TProtocolFactory protocol) throws Exception {
      TNonblockingServerSocket socket =
          new TNonblockingServerSocket(new InetSocketAddress("127.0.0.1", 0));
      address = new InetSocketAddress("127.0.0.1", socket.getPort());
      server =
          new TThreadedSelectorServer(
              new TThreadedSelectorServer.Args(socket)
                  .processor(new BenchService.Processor<>(handler))
                  .protocolFactory(protocol)
                  .selectorThreads(1)
                  .workerThreads(2));
      // The socket is bound and listening already: connections made before serve() runs wait in
      // the accept backlog, so no start latch is needed.
      thread = new Thread(server::serve, "stock-threaded-selector");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      server.stop();
      thread.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void stockSocketClientCallsEveryMethod(String protocolName) throws Exception {
    TProtocolFactory protocol = protocol(protocolName);
    ClientKind kind = ClientKinds.stockSocket();
    assertThat(kind.name()).isEqualTo("tsocket");
    try (StockServer server = new StockServer(protocol);
        BenchConnection connection = kind.connect(server.address, protocol)) {
      BenchService.Iface c = connection.iface();
      assertThat(Payloads.check(c.echo(Payloads.of(Payloads.MEDIUM, 11)), Payloads.MEDIUM, 11))
          .isTrue();
      assertThat(Payloads.check(c.echo(Payloads.of(Payloads.LARGE, 12)), Payloads.LARGE, 12))
          .isTrue();
      assertThat(c.get_last_sale("IBM")).isEqualTo(new TradeReport("IBM", 25.50, 100, 1));
      assertThat(c.db_work(100)).hasSize(100).element(99).isEqualTo(BenchHandler.row(99));
      Nested nested = c.get_nested(BenchHandler.MAX_DEPTH);
      assertThat(nested).isEqualTo(BenchHandler.nested(BenchHandler.MAX_DEPTH));
      c.sleep(1);
      assertThatThrownBy(() -> c.fail(503, "busy")).isEqualTo(new BenchError(503, "busy"));
      // db_work declares no exception, so its bad-argument BenchError is undeclared on the wire.
      assertThatThrownBy(() -> c.db_work(-1))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
      c.fire(Payloads.of(100, 1));
      c.fire(Payloads.of(200, 2));
      // The stock server finishes a connection's oneway call before reading its next frame.
      assertThat(c.fired()).isEqualTo(2);
      assertThat(server.handler.firedBytes()).isEqualTo(300);
    }
  }

  @Test
  void rawConnectionPipelinesFramesToAStockServer() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    try (StockServer server = new StockServer(protocol);
        RawConnection raw = RawConnection.open(server.address)) {
      byte[] three =
          concat(
              RawConnection.frame(
                  RawConnection.encodeCall(
                      protocol, "get_last_sale", 101, new BenchService.get_last_sale_args("A"))),
              RawConnection.frame(
                  RawConnection.encodeCall(
                      protocol, "get_last_sale", 102, new BenchService.get_last_sale_args("B"))),
              RawConnection.frame(
                  RawConnection.encodeCall(
                      protocol, "db_work", 103, new BenchService.db_work_args(2))));
      raw.write(three);

      BenchService.get_last_sale_result a = new BenchService.get_last_sale_result();
      assertThat(RawConnection.decodeReply(protocol, raw.readFrame(), a).seqid).isEqualTo(101);
      assertThat(a.getSuccess().getSymbol()).isEqualTo("A");
      BenchService.get_last_sale_result b = new BenchService.get_last_sale_result();
      assertThat(RawConnection.decodeReply(protocol, raw.readFrame(), b).seqid).isEqualTo(102);
      assertThat(b.getSuccess().getSymbol()).isEqualTo("B");
      BenchService.db_work_result rows = new BenchService.db_work_result();
      TMessage m = RawConnection.decodeReply(protocol, raw.readFrame(), rows);
      assertThat(m.name).isEqualTo("db_work");
      assertThat(m.type).isEqualTo(TMessageType.REPLY);
      assertThat(rows.getSuccess()).containsExactly(BenchHandler.row(0), BenchHandler.row(1));

      // An unknown method comes back as a TApplicationException from decodeReply.
      raw.writeFrame(
          RawConnection.encodeCall(protocol, "nope", 104, new BenchService.fired_args()));
      byte[] reply = raw.readFrame();
      assertThatThrownBy(
              () -> RawConnection.decodeReply(protocol, reply, new BenchService.fired_result()))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD));
    }
  }

  @Test
  void stockServerClosesOnForeignBytesAndRawConnectionSeesIt() throws Exception {
    try (StockServer server = new StockServer(new TBinaryProtocol.Factory());
        RawConnection raw = RawConnection.open(server.address)) {
      raw.write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] before = raw.awaitClosedBy(Duration.ofSeconds(20));
      assertThat(before).isEmpty();
    }
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    ByteBuffer b = ByteBuffer.allocate(n);
    for (byte[] p : parts) {
      b.put(p);
    }
    return b.array();
  }

  // ---- RawConnection encoding, offline ----

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void encodeCallWritesOneMessageThatDecodesBack(String protocolName) throws Exception {
    TProtocolFactory protocol = protocol(protocolName);
    byte[] call =
        RawConnection.encodeCall(
            protocol, "fail", TMessageType.CALL, 77, new BenchService.fail_args(1, "m"));
    TProtocol in =
        protocol.getProtocol(FrameInputTransport.of(new TConfiguration(), ByteBuffer.wrap(call)));
    TMessage m = in.readMessageBegin();
    assertThat(m.name).isEqualTo("fail");
    assertThat(m.type).isEqualTo(TMessageType.CALL);
    assertThat(m.seqid).isEqualTo(77);
    BenchService.fail_args args = new BenchService.fail_args();
    args.read(in);
    in.readMessageEnd();
    assertThat(args).isEqualTo(new BenchService.fail_args(1, "m"));

    byte[] oneway =
        RawConnection.encodeCall(
            protocol,
            "fire",
            TMessageType.ONEWAY,
            1,
            new BenchService.fire_args(Payloads.of(1, 1)));
    assertThat(
            protocol
                .getProtocol(FrameInputTransport.of(new TConfiguration(), ByteBuffer.wrap(oneway)))
                .readMessageBegin()
                .type)
        .isEqualTo(TMessageType.ONEWAY);

    byte[] framed = RawConnection.frame(call);
    assertThat(Framing.decodeLength(framed, 0)).isEqualTo(call.length);
    assertThat(framed).hasSize(call.length + 4).endsWith(call);
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void decodeReplyReadsResultsAndThrowsApplicationExceptions(String protocolName) throws Exception {
    TProtocolFactory protocol = protocol(protocolName);
    BenchService.get_nested_result sent = new BenchService.get_nested_result();
    sent.setSuccess(BenchHandler.nested(3));
    byte[] reply =
        message(protocol, new TMessage("get_nested", TMessageType.REPLY, 5), sent::write);
    BenchService.get_nested_result got = new BenchService.get_nested_result();
    TMessage m = RawConnection.decodeReply(protocol, reply, got);
    assertThat(m.seqid).isEqualTo(5);
    assertThat(got).isEqualTo(sent);

    byte[] exception =
        message(
            protocol,
            new TMessage("get_nested", TMessageType.EXCEPTION, 6),
            p ->
                new TApplicationException(TApplicationException.INTERNAL_ERROR, "kaputt").write(p));
    assertThatThrownBy(
            () ->
                RawConnection.decodeReply(
                    protocol, exception, new BenchService.get_nested_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
              assertThat(e.getMessage()).isEqualTo("kaputt");
            });
  }

  @FunctionalInterface
  interface Body {
    void write(TProtocol p) throws Exception;
  }

  private static byte[] message(TProtocolFactory protocol, TMessage header, Body body)
      throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration());
    TProtocol p = protocol.getProtocol(t);
    p.writeMessageBegin(header);
    body.write(p);
    p.writeMessageEnd();
    ByteBuffer payload = t.payload();
    byte[] b = new byte[payload.remaining()];
    payload.get(b);
    return b;
  }
}
