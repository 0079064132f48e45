package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.MiniService.Reply;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.Refusal;
import io.thriftnio.core.wire.ServerCodec;
import io.thriftnio.core.wire.THeaderFrames;
import io.thriftnio.core.wire.WireEvent;
import io.thriftnio.core.wire.WireSettings;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * THeader requests through the call path, in memory: each answered in the protocol, transforms,
 * flags and sequence id its header named, whatever the server's protocol; its info headers seen by
 * the handler; a refusal answered in the caller's protocol.
 */
@Timeout(10)
class THeaderCallPathTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();
  private static final int MAX = 4096;

  private final ServerCounters counters = new ServerCounters();
  private final MemoryConnection connection = new MemoryConnection();

  @AfterEach
  void everyRequestReleasedOnce() {
    assertThat(connection.allReleasedOnce()).as("every request released exactly once").isTrue();
  }

  private CallSequencer server(TProtocolFactory protocol) {
    ProcessorInvoker invoker = ProcessorInvoker.of(new MiniService.Sync(), protocol, protocol, MAX);
    return CallPath.builder(invoker, counters).maxCallsInFlight(100).build().open(connection);
  }

  /** Decodes {@code frame} as an adapter does and hands the result to {@code seq}. */
  private void deliver(CallSequencer seq, byte[] frame) {
    ServerCodec codec =
        new ServerCodec(
            WireSettings.of(MAX, EnumSet.of(WireKind.HEADER), null, "/"),
            InetSocketAddress.createUnresolved("test-peer", 0));
    WireEvent event = codec.next(ByteSource.of(frame), 0, frame.length);
    Decoded d = codec.decoded();
    if (event == WireEvent.REFUSED) {
      Refusal r = d.refusal();
      seq.onBadFrame(r.header(), r.reason(), r.envelope());
      return;
    }
    assertThat(event).isEqualTo(WireEvent.MESSAGE);
    ByteBuffer payload =
        d.payloadArray() != null
            ? ByteBuffer.wrap(d.payloadArray())
            : ByteBuffer.wrap(frame, d.payloadOffset(), d.payloadLength()).slice();
    seq.onRequest(payload, connection.newRequest(), d.envelope());
    seq.readComplete();
  }

  private static byte[] request(TProtocolFactory p, String method, int seqid, String text)
      throws Exception {
    ByteBuffer m = MiniService.call(p, method, seqid, text);
    byte[] bytes = new byte[m.remaining()];
    m.get(bytes);
    return bytes;
  }

  private THeaderFrames.Reply onlyReply() throws Exception {
    assertThat(connection.sent).hasSize(1);
    ByteBuffer sent = connection.sent.get(0);
    byte[] bytes = new byte[sent.remaining()];
    sent.duplicate().get(bytes);
    return THeaderFrames.read(bytes);
  }

  private static Reply decode(TProtocolFactory p, byte[] message) throws Exception {
    ByteBuffer frame = ByteBuffer.allocate(4 + message.length).putInt(message.length).put(message);
    return MiniService.decode(p, frame.flip());
  }

  @Test
  void aCompactRequestOnABinaryServerIsAnsweredInCompactWithItsHeaderSeenByTheHandler()
      throws Exception {
    CallSequencer seq = server(BINARY);
    deliver(
        seq,
        THeaderFrames.request()
            .protocol(2)
            .flags(0x0002)
            .seqId(77)
            .header("tenant", "blue")
            .frame(request(COMPACT, "header", 5, "tenant")));

    THeaderFrames.Reply reply = onlyReply();
    assertThat(reply.protocolId).isEqualTo(2);
    assertThat(reply.seqId).isEqualTo(77);
    assertThat(reply.flags).isEqualTo(0x0002);
    assertThat(reply.transforms).isEmpty();
    Reply message = decode(COMPACT, reply.message);
    assertThat(message.header().seqid).isEqualTo(5);
    assertThat(message.success()).isEqualTo("blue");
  }

  @Test
  void aBinaryRequestOnACompactServerIsAnsweredInBinaryAndItsFailureCounted() throws Exception {
    CallSequencer seq = server(COMPACT);
    deliver(seq, THeaderFrames.request().seqId(3).frame(request(BINARY, "nope", 3, "x")));

    THeaderFrames.Reply reply = onlyReply();
    assertThat(reply.protocolId).isZero();
    Reply message = decode(BINARY, reply.message);
    assertThat(message.exception().getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD);
    assertThat(counters.failedCalls.sum()).isEqualTo(1);
  }

  @Test
  void aZlibRequestGetsAZlibReply() throws Exception {
    CallSequencer seq = server(BINARY);
    deliver(seq, THeaderFrames.request().transform(1).frame(request(BINARY, "big", 1, "abc")));

    THeaderFrames.Reply reply = onlyReply();
    assertThat(reply.transforms).containsExactly(1);
    assertThat(reply.length).isLessThan(3000 / 2); // 3,000 bytes of text, compressed
    assertThat(decode(BINARY, reply.message).success()).isEqualTo("abc".repeat(1000));
  }

  @Test
  void aFramedCallSeesNoHeaders() throws Exception {
    CallSequencer seq = server(BINARY);
    seq.onRequest(MiniService.call(BINARY, "header", 1, "tenant"), connection.newRequest());
    seq.readComplete();
    assertThat(MiniService.decode(BINARY, connection.sent.get(0)).success()).isEqualTo("<none>");
  }

  @Test
  void aTransformNotServedIsAnsweredInTheCallersProtocolThenTheConnectionCloses() throws Exception {
    CallSequencer seq = server(BINARY);
    deliver(
        seq,
        THeaderFrames.request()
            .protocol(2)
            .seqId(12)
            .transform(2)
            .frame(request(COMPACT, "echo", 12, "x")));

    THeaderFrames.Reply reply = onlyReply();
    assertThat(reply.protocolId).isEqualTo(2);
    assertThat(reply.seqId).isEqualTo(12);
    Reply message = decode(COMPACT, reply.message);
    assertThat(message.header().seqid).isEqualTo(12);
    assertThat(message.exception().getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
    assertThat(message.exception().getMessage()).contains("transform 2 (HMAC) not supported");
    assertThat(connection.closedHalfFirst).as("closed after the answer").isNotNull();
    assertThat(counters.badFrames.sum()).isEqualTo(1);
  }
}
