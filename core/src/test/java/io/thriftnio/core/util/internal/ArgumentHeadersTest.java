package io.thriftnio.core.util.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMap;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TByteBuffer;
import org.apache.thrift.transport.TMemoryBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class ArgumentHeadersTest {

  private static final Map<String, String> TRACE =
      Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");

  private static TProtocolFactory factory(String protocol) {
    return protocol.equals("binary")
        ? new TBinaryProtocol.Factory()
        : new TCompactProtocol.Factory();
  }

  /** A call of {@code echo(1: string text, 2: i32 times)}, as generated code writes it. */
  private static ByteBuffer call(TProtocolFactory factory, Map<String, String> field8888Extra)
      throws TException {
    TMemoryBuffer out = new TMemoryBuffer(64);
    TProtocol p = factory.getProtocol(out);
    p.writeMessageBegin(new TMessage("echo", TMessageType.CALL, 7));
    p.writeStructBegin(new TStruct("echo_args"));
    p.writeFieldBegin(new TField("text", TType.STRING, (short) 1));
    p.writeString("hello");
    p.writeFieldEnd();
    p.writeFieldBegin(new TField("times", TType.I32, (short) 2));
    p.writeI32(3);
    p.writeFieldEnd();
    p.writeFieldStop();
    p.writeStructEnd();
    p.writeMessageEnd();
    ByteBuffer plain = ByteBuffer.wrap(out.getArray(), 0, out.length());
    return ArgumentHeaders.write(plain, field8888Extra);
  }

  /** Reads the arguments as generated code does: known fields, unknown ones skipped. */
  private static String readAsGenerated(TProtocolFactory factory, ByteBuffer message)
      throws TException {
    TProtocol in = factory.getProtocol(new TByteBuffer(message.duplicate()));
    in.readMessageBegin();
    in.readStructBegin();
    String text = null;
    int times = 0;
    while (true) {
      TField f = in.readFieldBegin();
      if (f.type == TType.STOP) {
        break;
      }
      if (f.id == 1 && f.type == TType.STRING) {
        text = in.readString();
      } else if (f.id == 2 && f.type == TType.I32) {
        times = in.readI32();
      } else {
        in.skip(f.type);
      }
      in.readFieldEnd();
    }
    in.readStructEnd();
    in.readMessageEnd();
    return text + "x" + times;
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void headersWrittenInTheArgumentsAreReadBackAndSkippedByGeneratedCode(String protocol)
      throws TException {
    TProtocolFactory factory = factory(protocol);
    ByteBuffer message = call(factory, TRACE);

    assertThat(ArgumentHeaders.read(message)).isEqualTo(TRACE);
    assertThat(readAsGenerated(factory, message)).isEqualTo("hellox3");
    assertThat(ArgumentHeaders.read(call(factory, Map.of()))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void aMapOverTheBoundsIsIgnoredWholeAndStillSkipped(String protocol) throws TException {
    TProtocolFactory factory = factory(protocol);
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i <= ArgumentHeaders.MAX_ENTRIES; i++) {
      many.put("k" + i, "v");
    }
    Map<String, String> large = Map.of("traceparent", "x".repeat(ArgumentHeaders.MAX_BYTES));

    assertThat(ArgumentHeaders.read(call(factory, many))).isEmpty();
    assertThat(ArgumentHeaders.read(call(factory, large))).isEmpty();
    assertThat(readAsGenerated(factory, call(factory, many))).isEqualTo("hellox3");
    assertThat(readAsGenerated(factory, call(factory, large))).isEqualTo("hellox3");
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void aMapOfOtherTypesOrATruncatedMessageGivesNoHeaders(String protocol) throws TException {
    TProtocolFactory factory = factory(protocol);
    TMemoryBuffer out = new TMemoryBuffer(64);
    TProtocol p = factory.getProtocol(out);
    p.writeMessageBegin(new TMessage("echo", TMessageType.CALL, 7));
    p.writeStructBegin(new TStruct("echo_args"));
    p.writeFieldBegin(new TField("", TType.MAP, ArgumentHeaders.FIELD_ID));
    p.writeMapBegin(new TMap(TType.I32, TType.I32, 1));
    p.writeI32(1);
    p.writeI32(2);
    p.writeMapEnd();
    p.writeFieldEnd();
    p.writeFieldStop();
    p.writeStructEnd();
    ByteBuffer ints = ByteBuffer.wrap(out.getArray(), 0, out.length());
    assertThat(ArgumentHeaders.read(ints)).isEmpty();

    // Cut anywhere up to the map's end (the arguments' stop byte, last, is not needed to read it).
    ByteBuffer whole = call(factory, TRACE);
    for (int cut = 0; cut < whole.remaining() - 1; cut++) {
      ByteBuffer truncated = whole.duplicate();
      truncated.limit(cut);
      assertThat(ArgumentHeaders.read(truncated)).as("cut at %d", cut).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void aReplyOrAnUnknownProtocolIsLeftAlone(String protocol) throws TException {
    TMemoryBuffer out = new TMemoryBuffer(64);
    TProtocol p = factory(protocol).getProtocol(out);
    p.writeMessageBegin(new TMessage("echo", TMessageType.REPLY, 7));
    p.writeStructBegin(new TStruct("echo_result"));
    p.writeFieldStop();
    ByteBuffer reply = ByteBuffer.wrap(out.getArray(), 0, out.length());
    assertThat(ArgumentHeaders.read(ArgumentHeaders.write(reply, TRACE))).isEmpty();

    ByteBuffer json =
        ByteBuffer.wrap("[1,\"echo\",1,7,{}]".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(ArgumentHeaders.write(json, TRACE)).isSameAs(json);
    assertThat(ArgumentHeaders.read(json)).isEmpty();
  }
}
