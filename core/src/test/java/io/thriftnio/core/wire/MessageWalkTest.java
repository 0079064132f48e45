package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.WireKind;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.UUID;
import java.util.function.Function;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMap;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TSet;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TIOStreamTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(30)
class MessageWalkTest {

  private static final int LIMIT = 16_384_000;

  /** The encodings walked, by the first byte of their messages. */
  enum Protocol {
    BINARY(0x80),
    COMPACT(0x82),
    JSON('[');

    final byte first;

    Protocol(int first) {
      this.first = (byte) first;
    }
  }

  private static MessageWalk walk(Protocol p, int limit) {
    return MessageWalk.forFirstByte(p.first, limit, WireSettings.MAX_DEPTH);
  }

  private static Function<TIOStreamTransport, TProtocol> writer(Protocol p) {
    switch (p) {
      case BINARY:
        return TBinaryProtocol::new;
      case COMPACT:
        return TCompactProtocol::new;
      default:
        return TJSONProtocol::new;
    }
  }

  /** A message with every field type, nested structs, and empty and full containers. */
  static byte[] everything(Protocol p, String method, int seqid) throws TException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TProtocol w = writer(p).apply(new TIOStreamTransport(out));
    w.writeMessageBegin(new TMessage(method, TMessageType.CALL, seqid));
    w.writeStructBegin(new TStruct("args"));
    short id = 1;
    w.writeFieldBegin(new TField("t", TType.BOOL, id++));
    w.writeBool(true);
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("f", TType.BOOL, id++));
    w.writeBool(false);
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("b", TType.BYTE, id++));
    w.writeByte((byte) -7);
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("s", TType.I16, id++));
    w.writeI16((short) -300);
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("i", TType.I32, id++));
    w.writeI32(Integer.MIN_VALUE);
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("l", TType.I64, (short) 200)); // a long field id delta
    w.writeI64(Long.MIN_VALUE);
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("d", TType.DOUBLE, (short) 201));
    w.writeDouble(Math.PI);
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("str", TType.STRING, (short) 202));
    w.writeString("naïve \"quoted\" [json] {chars} \\ end");
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("bin", TType.STRING, (short) 203));
    w.writeBinary(ByteBuffer.wrap(new byte[300]));
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("uuid", TType.UUID, (short) 204));
    w.writeUuid(new UUID(1, 2));
    w.writeFieldEnd();
    // A nested struct holding a struct.
    w.writeFieldBegin(new TField("nested", TType.STRUCT, (short) 205));
    w.writeStructBegin(new TStruct("outer"));
    w.writeFieldBegin(new TField("inner", TType.STRUCT, (short) 1));
    w.writeStructBegin(new TStruct("inner"));
    w.writeFieldBegin(new TField("x", TType.I32, (short) 1));
    w.writeI32(5);
    w.writeFieldEnd();
    w.writeFieldStop();
    w.writeStructEnd();
    w.writeFieldEnd();
    w.writeFieldStop();
    w.writeStructEnd();
    w.writeFieldEnd();
    // A list of 20 structs (more than 14: the compact long size form), a list of bools.
    w.writeFieldBegin(new TField("structs", TType.LIST, (short) 206));
    w.writeListBegin(new TList(TType.STRUCT, 20));
    for (int i = 0; i < 20; i++) {
      w.writeStructBegin(new TStruct("e"));
      w.writeFieldBegin(new TField("v", TType.STRING, (short) 1));
      w.writeString("e" + i);
      w.writeFieldEnd();
      w.writeFieldStop();
      w.writeStructEnd();
    }
    w.writeListEnd();
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("bools", TType.LIST, (short) 207));
    w.writeListBegin(new TList(TType.BOOL, 3));
    w.writeBool(true);
    w.writeBool(false);
    w.writeBool(true);
    w.writeListEnd();
    w.writeFieldEnd();
    // Empty containers.
    w.writeFieldBegin(new TField("emptyList", TType.LIST, (short) 208));
    w.writeListBegin(new TList(TType.I64, 0));
    w.writeListEnd();
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("emptySet", TType.SET, (short) 209));
    w.writeSetBegin(new TSet(TType.STRING, 0));
    w.writeSetEnd();
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("emptyMap", TType.MAP, (short) 210));
    w.writeMapBegin(new TMap(TType.STRING, TType.STRUCT, 0));
    w.writeMapEnd();
    w.writeFieldEnd();
    // A set of i16, a map of string to list of doubles, a map of i32 to map.
    w.writeFieldBegin(new TField("set", TType.SET, (short) 211));
    w.writeSetBegin(new TSet(TType.I16, 2));
    w.writeI16((short) 1);
    w.writeI16((short) 2);
    w.writeSetEnd();
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("map", TType.MAP, (short) 212));
    w.writeMapBegin(new TMap(TType.STRING, TType.LIST, 2));
    for (int k = 0; k < 2; k++) {
      w.writeString("k" + k);
      w.writeListBegin(new TList(TType.DOUBLE, 2));
      w.writeDouble(k);
      w.writeDouble(-k);
      w.writeListEnd();
    }
    w.writeMapEnd();
    w.writeFieldEnd();
    w.writeFieldBegin(new TField("maps", TType.MAP, (short) 213));
    w.writeMapBegin(new TMap(TType.I32, TType.MAP, 1));
    w.writeI32(9);
    w.writeMapBegin(new TMap(TType.BOOL, TType.UUID, 1));
    w.writeBool(true);
    w.writeUuid(new UUID(3, 4));
    w.writeMapEnd();
    w.writeMapEnd();
    w.writeFieldEnd();
    w.writeFieldStop();
    w.writeStructEnd();
    w.writeMessageEnd();
    w.getTransport().flush();
    return out.toByteArray();
  }

  private static ByteSource source(byte[] bytes) {
    return ByteSource.of(bytes);
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void aWholeMessageIsFoundAndNothingBefore(Protocol p) throws Exception {
    byte[] message = everything(p, "echo", 42);
    MessageWalk walk = walk(p, LIMIT);
    for (int n = 0; n < message.length; n++) {
      assertThat(walk(p, LIMIT).next(source(message), 0, n))
          .as("first %d of %d bytes", n, message.length)
          .isEqualTo(MessageWalk.NEED_MORE);
    }
    assertThat(walk.next(source(message), 0, message.length)).isEqualTo(message.length);
    if (p != Protocol.JSON) {
      assertThat(walk.header().name).isEqualTo("echo");
      assertThat(walk.header().seqid).isEqualTo(42);
      assertThat(walk.header().type).isEqualTo(TMessageType.CALL);
    }
  }

  /**
   * Two messages back to back, fed in two reads split at every byte, the walk resuming where it
   * stopped: it finds both boundaries, and resumes rather than starting over (each call's bytes
   * walked only grow).
   */
  @ParameterizedTest
  @EnumSource(Protocol.class)
  void twoMessagesSplitAtEveryByte(Protocol p) throws Exception {
    byte[] first = everything(p, "first", 1);
    byte[] second = everything(p, "second_method", 2);
    byte[] stream = new byte[first.length + second.length];
    System.arraycopy(first, 0, stream, 0, first.length);
    System.arraycopy(second, 0, stream, first.length, second.length);
    for (int split = 0; split <= stream.length; split++) {
      MessageWalk walk = walk(p, LIMIT);
      int start = 0;
      int found = 0;
      int[] lengths = new int[2];
      for (int received : new int[] {split, stream.length}) {
        while (found < 2) {
          int before = walk.walked();
          int n = walk.next(source(stream), start, received - start);
          assertThat(walk.walked()).isGreaterThanOrEqualTo(before);
          if (n == MessageWalk.NEED_MORE) {
            break;
          }
          lengths[found++] = n;
          start += n;
          walk.reset();
        }
      }
      assertThat(lengths).as("split at %d", split).containsExactly(first.length, second.length);
    }
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void oneByteAtATimeResumes(Protocol p) throws Exception {
    byte[] message = everything(p, "slow", 7);
    MessageWalk walk = walk(p, LIMIT);
    int result = MessageWalk.NEED_MORE;
    for (int n = 1; n <= message.length; n++) {
      result = walk.next(source(message), 0, n);
      if (n < message.length) {
        assertThat(result).isEqualTo(MessageWalk.NEED_MORE);
      }
    }
    assertThat(result).isEqualTo(message.length);
  }

  /** A large binary argument is walked once: read a piece at a time, never again from its start. */
  @Test
  void aLargeStringIsSkippedNotReread() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TProtocol w = new TBinaryProtocol(new TIOStreamTransport(out));
    w.writeMessageBegin(new TMessage("echo", TMessageType.CALL, 1));
    w.writeStructBegin(new TStruct("args"));
    w.writeFieldBegin(new TField("b", TType.STRING, (short) 1));
    w.writeBinary(ByteBuffer.wrap(new byte[1_000_000]));
    w.writeFieldEnd();
    w.writeFieldStop();
    w.writeStructEnd();
    byte[] message = out.toByteArray();
    int[] reads = new int[1];
    ByteSource counting =
        new ByteSource() {
          @Override
          public byte getByte(int index) {
            reads[0]++;
            return message[index];
          }

          @Override
          public int getInt(int index) {
            reads[0] += 4;
            return ByteSource.of(message).getInt(index);
          }

          @Override
          public void getBytes(int index, byte[] dst, int offset, int length) {
            reads[0] += length;
            System.arraycopy(message, index, dst, offset, length);
          }
        };
    MessageWalk walk = new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH);
    int result = MessageWalk.NEED_MORE;
    for (int n = 1000; result == MessageWalk.NEED_MORE; n = Math.min(n + 1000, message.length)) {
      result = walk.next(counting, 0, n);
    }
    assertThat(result).isEqualTo(message.length);
    // Two windows of 256 bytes (the header, then the STOP byte), never the megabyte between them.
    assertThat(reads[0]).as("bytes copied").isLessThan(1000);
  }

  @Test
  void aTwoGigabyteStringIsRefusedFromTheHeaderAlone() {
    ByteBuffer b = ByteBuffer.allocate(64);
    b.putInt(0x80010001).putInt(4).put("echo".getBytes()).putInt(9);
    b.put((byte) TType.STRING).putShort((short) 1).putInt(Integer.MAX_VALUE);
    byte[] bytes = b.array();
    int length = b.position();
    MessageWalk walk = new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH);
    assertThatThrownBy(() -> walk.next(source(bytes), 0, length))
        .isInstanceOfSatisfying(
            MessageWalk.Invalid.class,
            e -> {
              assertThat(e.header().seqid).isEqualTo(9);
              assertThat(e.header().name).isEqualTo("echo");
            })
        .hasMessageContaining("a string of 2147483647 bytes at byte 23")
        .hasMessageContaining("maxMessageSize 16384000");
  }

  @Test
  void stringsUpToTheLimitAreAcceptedAndOneMoreByteIsNot() throws Exception {
    // header 12 + field 3 + length 4 + body + stop 1
    ByteBuffer b = ByteBuffer.allocate(64);
    b.putInt(0x80010001).putInt(0).putInt(1);
    b.put((byte) TType.STRING).putShort((short) 1).putInt(100);
    int limit = 12 + 3 + 4 + 100 + 1;
    MessageWalk fits = new BinaryWalk(limit, WireSettings.MAX_DEPTH);
    assertThat(fits.next(source(b.array()), 0, 23)).isEqualTo(MessageWalk.NEED_MORE);
    MessageWalk over = new BinaryWalk(limit - 1, WireSettings.MAX_DEPTH);
    // A body that fits exactly leaves no room for the STOP byte: refused once it is due.
    assertThatThrownBy(
            () -> {
              byte[] whole = new byte[limit];
              System.arraycopy(b.array(), 0, whole, 0, 23);
              over.next(source(whole), 0, whole.length);
            })
        .isInstanceOf(MessageWalk.Invalid.class)
        .hasMessageContaining("maxMessageSize " + (limit - 1));
    byte[] whole = new byte[limit];
    System.arraycopy(b.array(), 0, whole, 0, 23);
    assertThat(fits.next(source(whole), 0, limit)).isEqualTo(limit);
  }

  @Test
  void aBillionStructsAreRefusedAtTheListHeader() {
    ByteBuffer b = ByteBuffer.allocate(64);
    b.put((byte) 0x82).put((byte) 0x21).put((byte) 1).put((byte) 4).put("echo".getBytes());
    b.put((byte) 0x19); // field 1, list
    b.put((byte) 0xfc); // size 15 (long form), element struct (12)
    b.put(new byte[] {(byte) 0x80, (byte) 0x94, (byte) 0xeb, (byte) 0xdc, 0x03}); // 1e9
    MessageWalk walk = new CompactWalk(LIMIT, WireSettings.MAX_DEPTH);
    assertThatThrownBy(() -> walk.next(source(b.array()), 0, b.position()))
        .isInstanceOf(MessageWalk.Invalid.class)
        .hasMessageContaining("a list of 1000000000 elements");
  }

  /** Args, then {@code levels} nested structs in field 1, then every STOP. */
  private static byte[] nestedStructs(int levels) {
    ByteBuffer b = ByteBuffer.allocate(12 + 4 * levels + levels + 1);
    b.putInt(0x80010001).putInt(0).putInt(1);
    for (int i = 0; i < levels; i++) {
      b.put((byte) TType.STRUCT).putShort((short) 1);
    }
    for (int i = 0; i <= levels; i++) {
      b.put((byte) TType.STOP);
    }
    return Arrays.copyOf(b.array(), b.position());
  }

  @Test
  void structsNestUpToLibthriftsLimitBelowTheArguments() throws Exception {
    byte[] deepest = nestedStructs(64);
    assertThat(
            new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH).next(source(deepest), 0, deepest.length))
        .isEqualTo(deepest.length);
    byte[] tooDeep = nestedStructs(65);
    assertThatThrownBy(
            () ->
                new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH)
                    .next(source(tooDeep), 0, tooDeep.length))
        .isInstanceOf(MessageWalk.Invalid.class)
        .hasMessageContaining("structs nested more than 64 levels below the arguments");
  }

  @Test
  void containersNestBoundedToo() {
    ByteBuffer b = ByteBuffer.allocate(4000);
    b.putInt(0x80010001).putInt(0).putInt(1);
    b.put((byte) TType.LIST).putShort((short) 1);
    for (int i = 0; i < 300; i++) {
      b.put((byte) TType.LIST).putInt(1); // a list of one list ...
    }
    MessageWalk walk = new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH);
    assertThatThrownBy(() -> walk.next(source(b.array()), 0, b.position()))
        .isInstanceOf(MessageWalk.Invalid.class)
        .hasMessageContaining("containers and structs nested more than 260 levels");
    byte[] json = "[1,\"x\",1,0,{".concat("{\"1\":".repeat(300)).getBytes();
    assertThatThrownBy(
            () -> new JsonWalk(LIMIT, WireSettings.MAX_DEPTH).next(source(json), 0, json.length))
        .isInstanceOf(MessageWalk.Invalid.class)
        .hasMessageContaining("JSON brackets nested more than 260 levels");
  }

  @Test
  void jsonLongerThanTheLimitIsRefused() {
    byte[] json = ("[1,\"x\",1,0,{\"1\":{\"str\":\"" + "a".repeat(500)).getBytes();
    assertThatThrownBy(
            () -> new JsonWalk(100, WireSettings.MAX_DEPTH).next(source(json), 0, json.length))
        .isInstanceOf(MessageWalk.Invalid.class)
        .hasMessageContaining("longer than maxMessageSize 100");
  }

  @Test
  void brokenHeadersAreRefused() {
    byte[] oldBinary = {(byte) 0x80, 0x02, 0, 1, 0, 0, 0, 0};
    assertThatThrownBy(
            () -> new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH).next(source(oldBinary), 0, 8))
        .hasMessageContaining("strict binary version 80020001");
    byte[] badType = {(byte) 0x80, 0x01, 0, 9, 0, 0, 0, 0};
    assertThatThrownBy(
            () -> new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH).next(source(badType), 0, 8))
        .hasMessageContaining("message type 9");
    byte[] compact = {(byte) 0x82, 0x22};
    assertThatThrownBy(
            () -> new CompactWalk(LIMIT, WireSettings.MAX_DEPTH).next(source(compact), 0, 2))
        .hasMessageContaining("82 22");
    byte[] unknownField = {(byte) 0x80, 0x01, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 0, 1};
    assertThatThrownBy(
            () -> new BinaryWalk(LIMIT, WireSettings.MAX_DEPTH).next(source(unknownField), 0, 15))
        .hasMessageContaining("unknown field type 127");
  }

  @Test
  void detectionByFirstByte() {
    EnumSet<WireKind> both = EnumSet.of(WireKind.FRAMED, WireKind.UNFRAMED);
    EnumSet<WireKind> framed = EnumSet.of(WireKind.FRAMED);
    EnumSet<WireKind> unframed = EnumSet.of(WireKind.UNFRAMED);
    assertThat(detect((byte) 0x00, both)).isEqualTo(FramedDecoder.KIND);
    assertThat(detect((byte) 0x80, both)).isEqualTo(UnframedDecoder.BINARY);
    assertThat(detect((byte) 0x82, both)).isEqualTo(UnframedDecoder.COMPACT);
    assertThat(detect((byte) '[', both)).isEqualTo(UnframedDecoder.JSON);
    assertThat(detect((byte) '[', framed)).isEqualTo(FramedDecoder.KIND);
    assertThat(detect((byte) 0x80, framed)).isNull();
    assertThat(detect((byte) 0x00, unframed)).isNull();
    assertThat(detect((byte) 0x81, both)).isNull();
    assertThat(detect((byte) 0xff, both)).isNull();
    byte[] garbage = {(byte) 0x81, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1};
    assertThat(
            sniffer(both)
                .describeRefusal(source(garbage), 0, 5, new InetSocketAddress("10.0.0.1", 5)))
        .isEqualTo(
            "connection from /10.0.0.1:5 refused: first bytes 81 ff ff ff match no accepted"
                + " transport (accepted: [FRAMED, UNFRAMED])");
    byte[] framedBytes = {0, 0, 0, 9};
    assertThat(
            sniffer(unframed)
                .describeRefusal(
                    source(framedBytes), 0, 4, InetSocketAddress.createUnresolved("p", 0)))
        .endsWith(
            "(accepted: [UNFRAMED]); they look like a frame length (WireKind.FRAMED): to serve"
                + " them, accept WireKind.FRAMED on this server"
                + " (ServerBuilder.wireKinds(FRAMED, UNFRAMED))");
    byte[] http = "GET / HTTP/1.1".getBytes();
    assertThat(
            sniffer(unframed)
                .describeRefusal(
                    source(http), 0, http.length, InetSocketAddress.createUnresolved("p", 0)))
        .contains("first bytes 47 45 54 20")
        .endsWith(
            "look like an HTTP request (\"GET\"): to serve them, accept WireKind.HTTP on this"
                + " server (ServerBuilder.wireKinds(UNFRAMED, HTTP))");
  }

  private static Sniffer sniffer(EnumSet<WireKind> accepted) {
    return new Sniffer(WireSettings.of(LIMIT, accepted, null, "/"));
  }

  private static WireFormat detect(byte first, EnumSet<WireKind> accepted) {
    return sniffer(accepted).detect(source(new byte[] {first}), 0, 1);
  }
}
