package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TMemoryBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reply header of a pipelined call: read in place when it is the one expected (the name and the
 * wire sequence id sent), else by the protocol; either way the generated client gets its own
 * sequence id back, and a reply with another sequence id fails the call.
 */
@Timeout(10)
class SeqidProtocolsTest {

  private static final int CLIENT_SEQID = 1;

  static Stream<Arguments> protocols() {
    return Stream.of(
        Arguments.of("binary", new TBinaryProtocol.Factory()),
        Arguments.of("compact", new TCompactProtocol.Factory()),
        Arguments.of("json", new TJSONProtocol.Factory()));
  }

  /** A reply message: its header, then an i32 field 0 holding {@code value}, then stop. */
  private static ByteBuffer reply(TProtocolFactory f, String name, byte type, int seqId, int value)
      throws Exception {
    TMemoryBuffer buffer = new TMemoryBuffer(64);
    TProtocol out = f.getProtocol(buffer);
    out.writeMessageBegin(new TMessage(name, type, seqId));
    out.writeStructBegin(null);
    out.writeFieldBegin(new org.apache.thrift.protocol.TField("success", (byte) 8, (short) 0));
    out.writeI32(value);
    out.writeFieldEnd();
    out.writeFieldStop();
    out.writeStructEnd();
    out.writeMessageEnd();
    return ByteBuffer.wrap(buffer.getArray(), 0, buffer.length());
  }

  /** The decorator pair after a call {@code name} was written with wire sequence id 41 + 1. */
  private static final class Pair {
    final FrameInputTransport input = new FrameInputTransport(new TConfiguration());
    final SeqidProtocols.SequencingOutput sent;
    final SeqidProtocols.SequenceCheckingInput in;

    Pair(TProtocolFactory f, String name) throws Exception {
      sent =
          new SeqidProtocols.SequencingOutput(
              f.getProtocol(new TMemoryBuffer(64)), new AtomicInteger(41));
      sent.writeMessageBegin(new TMessage(name, TMessageType.CALL, CLIENT_SEQID));
      in =
          new SeqidProtocols.SequenceCheckingInput(
              f.getProtocol(input), sent, new NamedChannel(), input);
    }

    /** Reads the reply's header and then its i32 field. */
    int[] read(ByteBuffer reply, TMessage[] header) throws Exception {
      input.reset(reply);
      header[0] = in.readMessageBegin();
      in.readStructBegin();
      in.readFieldBegin();
      return new int[] {in.readI32(), input.remaining()};
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void theExpectedReplyGivesTheClientItsOwnSeqidAndReadsOnFromItsBody(
      String name, TProtocolFactory f) throws Exception {
    for (byte type : new byte[] {TMessageType.REPLY, TMessageType.EXCEPTION}) {
      Pair p = new Pair(f, "get_user");
      TMessage[] header = new TMessage[1];
      int[] read = p.read(reply(f, "get_user", type, 42, 7), header);
      assertThat(header[0].name).isEqualTo("get_user");
      assertThat(header[0].type).isEqualTo(type);
      assertThat(header[0].seqid).isEqualTo(CLIENT_SEQID);
      assertThat(read[0]).as("the body, read from where the header ended").isEqualTo(7);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void aReplyUnderAnotherNameFailsWithWrongMethodName(String name, TProtocolFactory f)
      throws Exception {
    // A generated client does not check the name: it would read get_usr's reply as get_user's.
    Pair p = new Pair(f, "get_user");
    TMessage[] header = new TMessage[1];
    assertThatThrownBy(() -> p.read(reply(f, "get_usr", TMessageType.REPLY, 42, 9), header))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.WRONG_METHOD_NAME))
        .hasMessageStartingWith("get_user failed: the reply from peer")
        .hasMessageEndingWith(":1 with seqid 42 names method get_usr");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void aMessageOfAnotherTypeFailsWithInvalidMessageType(String name, TProtocolFactory f)
      throws Exception {
    Pair p = new Pair(f, "get_user");
    TMessage[] header = new TMessage[1];
    assertThatThrownBy(() -> p.read(reply(f, "get_user", TMessageType.CALL, 42, 9), header))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INVALID_MESSAGE_TYPE))
        .hasMessageEndingWith(" has message type 1 (expected: 2 REPLY or 3 EXCEPTION)");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void aNonAsciiNameIsReadByTheProtocol(String name, TProtocolFactory f) throws Exception {
    Pair p = new Pair(f, "grüße");
    TMessage[] header = new TMessage[1];
    int[] read = p.read(reply(f, "grüße", TMessageType.REPLY, 42, 3), header);
    assertThat(header[0].name).isEqualTo("grüße");
    assertThat(read[0]).isEqualTo(3);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void aReplyWithAnotherSequenceIdFailsTheCallNamingBoth(String name, TProtocolFactory f)
      throws Exception {
    Pair p = new Pair(f, "get_user");
    p.input.reset(reply(f, "get_user", TMessageType.REPLY, 43, 1));
    assertThatThrownBy(p.in::readMessageBegin)
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.BAD_SEQUENCE_ID))
        .hasMessageStartingWith("get_user failed: out of sequence response from peer")
        .hasMessageEndingWith(":1: expected seqid 42, got 43 from method get_user");
  }

  @Test
  void theHeaderInPlaceNeedsTheProtocolsKindTheNameAndTheIdAndAWholeHeader() throws Exception {
    ByteBuffer binary = reply(new TBinaryProtocol.Factory(), "echo", TMessageType.REPLY, 5, 0);
    ByteBuffer compact = reply(new TCompactProtocol.Factory(), "echo", TMessageType.REPLY, 5, 0);
    assertThat(MessageHeaders.expectedHeader(binary, true, "echo", 5))
        .isEqualTo((12L + 4) << 8 | TMessageType.REPLY);
    assertThat(MessageHeaders.expectedHeader(compact, false, "echo", 5))
        .isEqualTo((4L + 4) << 8 | TMessageType.REPLY);
    assertThat(MessageHeaders.expectedHeader(binary, false, "echo", 5)).isEqualTo(-1);
    assertThat(MessageHeaders.expectedHeader(compact, true, "echo", 5)).isEqualTo(-1);
    assertThat(MessageHeaders.expectedHeader(binary, true, "echo", 6)).isEqualTo(-1);
    assertThat(MessageHeaders.expectedHeader(binary, true, "ecHo", 5)).isEqualTo(-1);
    assertThat(MessageHeaders.expectedHeader(binary, true, "echo2", 5)).isEqualTo(-1);
    ByteBuffer cut = binary.duplicate();
    cut.limit(cut.position() + 10);
    assertThat(MessageHeaders.expectedHeader(cut, true, "echo", 5)).isEqualTo(-1);
    assertThat(binary.position()).as("nothing moved").isZero();
  }

  /** A channel that only names its peer, for the out-of-sequence message. */
  private static final class NamedChannel implements ThriftChannel {
    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> send(ByteBuffer request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int callsInFlight() {
      return 0;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public SocketAddress remoteAddress() {
      return InetSocketAddress.createUnresolved("peer", 1);
    }

    @Override
    public void whenClosed(Runnable action) {}

    @Override
    public void close() {}
  }
}
