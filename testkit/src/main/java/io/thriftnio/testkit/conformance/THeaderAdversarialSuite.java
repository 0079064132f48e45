package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile and broken THeader peers against a server accepting {@link WireKind#HEADER}, bytes
 * written by hand ({@link THeaderFrames}): header sections cut short or lying about their size,
 * unknown transforms, broken zlib streams, info header count and size bombs (each limit at its
 * boundary: the largest accepted, one more refused), a protocol id the server does not serve after
 * good calls in the two it does, a frame cut short by the peer. Each case asserts what the peer
 * sees (a {@code TApplicationException(PROTOCOL_ERROR)} to its header sequence id, or a close with
 * nothing sent), the {@link ServerStats} counter, and that the handler never ran for the refused
 * call. A transport runs it once per strategy, one {@link ServerCell} each.
 *
 * <p>The zlib bomb and the HMAC transform are {@link THeaderSuite}'s; switching between binary and
 * compact, with and without zlib, call by call on one connection too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.PROTOCOLS)
public abstract class THeaderAdversarialSuite extends ServerCellSuite {

  private static final Duration WITHIN = Duration.ofSeconds(10);
  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();
  private static final int MAX = 64 * 1024;

  /** core's {@code THeaderSection.MAX_INFO_HEADERS}. */
  private static final int MAX_INFO_HEADERS = 100;

  /** core's {@code THeaderSection.MAX_INFO_HEADER_BYTES}. */
  private static final int MAX_INFO_HEADER_BYTES = 65_536;

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> clients = new ArrayList<>();
  private final AtomicInteger echoes = new AtomicInteger();
  private final AtomicReference<Map<String, String>> lastHeaders = new AtomicReference<>();

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  /**
   * A binary server taking framed and THeader peers, counting the echo calls that reach it and
   * keeping the last one's request headers.
   */
  private ThriftServer start(int maxFrameSize) throws Exception {
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public ByteBuffer echo(ByteBuffer payload) {
            echoes.incrementAndGet();
            lastHeaders.set(ServerCallContext.current().headers());
            return super.echo(payload);
          }
        };
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(handler))
            .protocol(BINARY)
            .ioStrategy(strategy())
            .maxFrameSize(maxFrameSize)
            .wireKinds(WireKind.FRAMED, WireKind.HEADER)
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

  private static THeaderFrames.Reply readReply(RawConnection raw) throws Exception {
    return THeaderFrames.read(RawConnection.frame(raw.readFrame()));
  }

  private static byte[] echoed(TProtocolFactory protocol, THeaderFrames.Reply reply, int seqid)
      throws Exception {
    BenchService.echo_result result = new BenchService.echo_result();
    TMessage header = RawConnection.decodeReply(protocol, reply.message, result);
    assertThat(header.seqid).isEqualTo(seqid);
    return result.getSuccess();
  }

  /** A header section from raw bytes: protocol id, transforms, info headers, as given. */
  private static byte[] section(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return b;
  }

  // ---- answered: the header's protocol id was read and is served --------------------------------

  static Stream<Arguments> answeredRefusals() {
    return Stream.of(
        Arguments.of(
            "info header key cut off by the section's end",
            THeaderFrames.request().rawSection(section(0, 0, 1, 1, 5, 'a', 'b')),
            "info header string of 5 bytes at byte 5 runs past the header section's 8 bytes"),
        Arguments.of(
            "info header count varint cut off by the section's end",
            THeaderFrames.request().rawSection(section(0, 0, 1, 0x81)),
            "info header count runs past the header section's end (4 bytes)"),
        Arguments.of(
            "transform 3 (snappy)",
            THeaderFrames.request().transform(3),
            "transform 3 (snappy) not supported (supported: 1 zlib)"),
        Arguments.of(
            "transform 99, unknown",
            THeaderFrames.request().transform(99),
            "transform 99 (unknown) not supported (supported: 1 zlib)"),
        Arguments.of(
            "five transforms",
            THeaderFrames.request().rawSection(section(0, 5, 1, 1, 1, 1, 1)),
            "5 transforms (limit 4)"),
        Arguments.of(
            "info header count one over the limit",
            THeaderFrames.request().rawSection(section(0, 0, 1, MAX_INFO_HEADERS + 1)),
            "info headers: 101 declared after 0 (limit 100)"),
        Arguments.of(
            "info header count of 2^31-1 in a 12-byte section",
            THeaderFrames.request()
                .rawSection(section(0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x07, 0, 0, 0, 0)),
            "info headers: 2147483647 declared after 0 (limit 100)"),
        Arguments.of(
            "info header key length of 70000 in an 8-byte section",
            // key length 70000 = varint f0 a2 04
            THeaderFrames.request().rawSection(section(0, 0, 1, 1, 0xf0, 0xa2, 0x04, 'k')),
            "info headers: 70000 bytes of keys and values (limit 65536)"),
        Arguments.of(
            "varint of six bytes",
            THeaderFrames.request().rawSection(section(0, 0, 1, 0x81, 0x80, 0x80, 0x80, 0x80, 1)),
            "info header count: varint at byte 3 overflows 31 bits (at most 5 bytes)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("answeredRefusals")
  void aBrokenSectionWithAServedProtocolIsAnsweredToItsSeqidAndClosed(
      String what, THeaderFrames request, String message) throws Exception {
    ThriftServer server = start(MAX);
    RawConnection raw = raw(server);
    raw.write(request.seqId(77).frame(echoCall(BINARY, 77, new byte[] {1, 2, 3})));

    THeaderFrames.Reply reply = readReply(raw);
    assertThat(reply.seqId).isEqualTo(77);
    assertThat(reply.protocolId).isZero();
    assertThatThrownBy(() -> echoed(BINARY, reply, 77))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR))
        .hasMessageContaining(message);
    assertThat(raw.awaitClosedBy(WITHIN)).as("bytes after the answer").isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(echoes).as("echo calls that reached the handler").hasValue(0);
  }

  @Test
  void aZlibStreamThatIsNotZlibIsAnsweredAndClosed() throws Exception {
    ThriftServer server = start(MAX);
    RawConnection raw = raw(server);
    // Transform 1 declared, the payload left as it is: not a zlib stream.
    byte[] frame = THeaderFrames.request().seqId(9).frame(echoCall(BINARY, 9, new byte[] {1}));
    byte[] section = section(0, 1, 1, 0);
    System.arraycopy(section, 0, frame, 14, 4);
    raw.write(frame);

    assertThatThrownBy(() -> echoed(BINARY, readReply(raw), 9))
        .isInstanceOf(TApplicationException.class)
        .hasMessageContaining("is corrupt");
    raw.awaitClosedBy(WITHIN);
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(echoes).hasValue(0);
  }

  @Test
  void aZlibStreamCutShortIsAnsweredAndClosed() throws Exception {
    ThriftServer server = start(MAX);
    RawConnection raw = raw(server);
    byte[] whole = THeaderFrames.zlib(echoCall(BINARY, 10, new byte[1000]));
    byte[] cut = Arrays.copyOf(whole, whole.length / 2);
    // The frame around the half stream, zlib declared (frame() would compress it again).
    byte[] frame = THeaderFrames.request().seqId(10).frame(cut);
    System.arraycopy(section(0, 1, 1, 0), 0, frame, 14, 4);
    raw.write(frame);

    assertThatThrownBy(() -> echoed(BINARY, readReply(raw), 10))
        .isInstanceOf(TApplicationException.class)
        .hasMessageContaining("ends before its stream does");
    raw.awaitClosedBy(WITHIN);
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  // ---- info header limits at their boundary
  // ------------------------------------------------------

  @Test
  void oneHundredInfoHeadersAreReadAndOneMoreIsRefused() throws Exception {
    ThriftServer server = start(MAX);
    THeaderFrames atLimit = THeaderFrames.request().seqId(1);
    THeaderFrames overLimit = THeaderFrames.request().seqId(2);
    for (int i = 0; i < MAX_INFO_HEADERS; i++) {
      atLimit.header("h" + i, "v" + i);
      overLimit.header("h" + i, "v" + i);
    }
    overLimit.header("one-more", "v");

    RawConnection raw = raw(server);
    raw.write(atLimit.frame(echoCall(BINARY, 1, new byte[] {1})));
    assertThat(echoed(BINARY, readReply(raw), 1)).containsExactly(1);
    assertThat(lastHeaders.get()).hasSize(MAX_INFO_HEADERS).containsEntry("h99", "v99");

    raw.write(overLimit.frame(echoCall(BINARY, 2, new byte[] {1})));
    assertThatThrownBy(() -> echoed(BINARY, readReply(raw), 2))
        .isInstanceOf(TApplicationException.class)
        .hasMessageContaining("info headers: 101 declared after 0 (limit 100)");
    raw.awaitClosedBy(WITHIN);
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(echoes).hasValue(1);
  }

  @Test
  void infoHeadersOf64KibAreReadAndOneByteMoreIsRefused() throws Exception {
    ThriftServer server = start(1 << 20); // room for a section over the info header limit
    String key = "x-large";
    String atLimit = "a".repeat(MAX_INFO_HEADER_BYTES - key.length());

    RawConnection raw = raw(server);
    raw.write(
        THeaderFrames.request()
            .seqId(1)
            .header(key, atLimit)
            .frame(echoCall(BINARY, 1, new byte[] {1})));
    assertThat(echoed(BINARY, readReply(raw), 1)).containsExactly(1);
    assertThat(lastHeaders.get()).containsOnlyKeys(key);
    assertThat(lastHeaders.get().get(key)).hasSize(atLimit.length());

    raw.write(
        THeaderFrames.request()
            .seqId(2)
            .header(key, atLimit + "a")
            .frame(echoCall(BINARY, 2, new byte[] {1})));
    assertThatThrownBy(() -> echoed(BINARY, readReply(raw), 2))
        .isInstanceOf(TApplicationException.class)
        .hasMessageContaining("info headers: 65537 bytes of keys and values (limit 65536)");
    raw.awaitClosedBy(WITHIN);
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(echoes).hasValue(1);
  }

  // ---- closed unanswered: nothing the caller could read can be written
  // ---------------------------

  static Stream<Arguments> unansweredRefusals() {
    return Stream.of(
        Arguments.of(
            "HEADER SIZE of 1000 words in a small frame",
            THeaderFrames.request().headerSizeWords(1000)),
        Arguments.of(
            "HEADER SIZE of 0: no protocol id", THeaderFrames.request().rawSection(new byte[0])),
        Arguments.of("protocol id 1 (JSON), not served", THeaderFrames.request().protocol(1)),
        Arguments.of(
            "protocol id varint that overflows",
            THeaderFrames.request().rawSection(section(0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0))));
  }

  /**
   * Each broken frame follows a binary call and a compact call answered on the same connection: the
   * switch between the two served protocols works, the switch to a broken or unserved one closes.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("unansweredRefusals")
  void aFrameWhoseProtocolCannotBeAnsweredClosesTheConnectionAfterEarlierReplies(
      String what, THeaderFrames broken) throws Exception {
    ThriftServer server = start(MAX);
    RawConnection raw = raw(server);
    raw.write(THeaderFrames.request().seqId(1).frame(echoCall(BINARY, 1, new byte[] {1})));
    assertThat(echoed(BINARY, readReply(raw), 1)).containsExactly(1);
    raw.write(
        THeaderFrames.request().protocol(2).seqId(2).frame(echoCall(COMPACT, 2, new byte[] {2})));
    assertThat(echoed(COMPACT, readReply(raw), 2)).containsExactly(2);

    raw.write(broken.seqId(3).frame(echoCall(BINARY, 3, new byte[] {3})));
    assertThat(raw.awaitClosedBy(WITHIN)).as("bytes sent for %s", what).isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(echoes).hasValue(2);
  }

  @Test
  void aFrameShorterThanTheFixedPartAfterAGoodCallIsClosedUnanswered() throws Exception {
    ThriftServer server = start(MAX);
    RawConnection raw = raw(server);
    raw.write(THeaderFrames.request().frame(echoCall(BINARY, 1, new byte[] {1})));
    assertThat(echoed(BINARY, readReply(raw), 1)).containsExactly(1);

    // Length 6: the magic, the flags and two bytes of the sequence id.
    raw.write(new byte[] {0, 0, 0, 6, 0x0f, (byte) 0xff, 0, 0, 0, 0});
    assertThat(raw.awaitClosedBy(WITHIN)).isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  @Test
  void aFrameWithoutTheMagicAfterAGoodCallIsClosedUnanswered() throws Exception {
    ThriftServer server = start(MAX);
    RawConnection raw = raw(server);
    raw.write(THeaderFrames.request().frame(echoCall(BINARY, 1, new byte[] {1})));
    assertThat(echoed(BINARY, readReply(raw), 1)).containsExactly(1);

    // A framed binary call on a connection that began in THeader: one kind per connection.
    raw.write(RawConnection.frame(echoCall(BINARY, 2, new byte[] {2})));
    assertThat(raw.awaitClosedBy(WITHIN)).isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(echoes).hasValue(1);
  }

  // ---- truncated: the peer leaves in the middle of a frame
  // ---------------------------------------

  @Test
  void aPeerThatLeavesInsideTheHeaderSectionIsCountedAsATruncatedFrame() throws Exception {
    ThriftServer server = start(MAX);
    RawConnection raw = raw(server);
    byte[] frame =
        THeaderFrames.request()
            .header("x-never", "read")
            .frame(echoCall(BINARY, 1, new byte[] {1}));
    raw.write(Arrays.copyOf(frame, 4 + 10 + 3)); // the fixed part and 3 bytes of the section
    raw.shutdownOutput();

    assertThat(raw.awaitClosedBy(WITHIN)).isEmpty();
    await("truncatedFrames == 1")
        .atMost(WITHIN)
        .untilAsserted(
            () ->
                assertThat(server.stats().truncatedFrames() == 1)
                    .as("%s", server.stats())
                    .isTrue());
    assertThat(server.stats().badFrames()).isZero();
    assertThat(echoes).hasValue(0);
  }
}
