package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TMemoryBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The headers and outcomes {@link CallMessages} reads in place for strict binary and compact agree
 * with what the protocols themselves read, and the other protocols still parse.
 */
class CallMessagesTest {

  private static final TConfiguration CONFIG = new TConfiguration();

  static Stream<Arguments> protocols() {
    return Stream.of(
        Arguments.of("binary", new TBinaryProtocol.Factory()),
        Arguments.of("compact", new TCompactProtocol.Factory()),
        Arguments.of("json", new TJSONProtocol.Factory()));
  }

  private interface Body {
    void write(TProtocol out) throws TException;
  }

  private static ByteBuffer message(TProtocolFactory f, TMessage header, Body body)
      throws TException {
    TMemoryBuffer buffer = new TMemoryBuffer(256);
    TProtocol out = f.getProtocol(buffer);
    out.writeMessageBegin(header);
    body.write(out);
    out.writeMessageEnd();
    return ByteBuffer.wrap(Arrays.copyOf(buffer.getArray(), buffer.length()));
  }

  /** A result struct whose only field has {@code id} (none for a void method's). */
  private static Body result(Short id) {
    return out -> {
      out.writeStructBegin(new TStruct("result"));
      if (id != null) {
        out.writeFieldBegin(new TField("f", TType.I32, id));
        out.writeI32(7);
        out.writeFieldEnd();
      }
      out.writeFieldStop();
      out.writeStructEnd();
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void readsTheHeaderAsTheProtocolDoes(String name, TProtocolFactory f) throws TException {
    for (TMessage m :
        new TMessage[] {
          new TMessage("echo", TMessageType.CALL, 1),
          new TMessage("get_last_sale", TMessageType.ONEWAY, Integer.MAX_VALUE),
          new TMessage("mé", TMessageType.CALL, -5),
          new TMessage("", TMessageType.CALL, 300)
        }) {
      ByteBuffer payload = message(f, m, result(null));
      int position = payload.position();
      TMessage read = CallMessages.read(payload, f, CONFIG);
      assertThat(read.name).isEqualTo(m.name);
      assertThat(read.type).isEqualTo(m.type);
      assertThat(read.seqid).isEqualTo(m.seqid);
      assertThat(payload.position()).isEqualTo(position);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void aHeaderCutShortFailsAsTheProtocolWould(String name, TProtocolFactory f) throws TException {
    ByteBuffer payload = message(f, new TMessage("echo", TMessageType.CALL, 1), result(null));
    ByteBuffer cut = payload.duplicate().limit(6);
    assertThatThrownBy(() -> CallMessages.read(cut, f, CONFIG)).isInstanceOf(TException.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void readsEachOutcomeOfAReply(String name, TProtocolFactory f) throws TException {
    TMessage reply = new TMessage("m", TMessageType.REPLY, 9);
    assertThat(CallMessages.outcome(message(f, reply, result((short) 0)), f, CONFIG))
        .isEqualTo(CallOutcome.SUCCESS);
    assertThat(CallMessages.outcome(message(f, reply, result(null)), f, CONFIG))
        .isEqualTo(CallOutcome.SUCCESS);
    assertThat(CallMessages.outcome(message(f, reply, result((short) 1)), f, CONFIG))
        .isEqualTo(CallOutcome.DECLARED_EXCEPTION);
    assertThat(CallMessages.outcome(message(f, reply, result((short) 300)), f, CONFIG))
        .isEqualTo(CallOutcome.DECLARED_EXCEPTION);
    assertThat(CallMessages.outcome(message(f, reply, result((short) -1)), f, CONFIG))
        .isEqualTo(CallOutcome.DECLARED_EXCEPTION);

    TMessage exception = new TMessage("m", TMessageType.EXCEPTION, 9);
    assertThat(
            CallMessages.outcome(
                message(
                    f,
                    exception,
                    new TApplicationException(TApplicationException.INTERNAL_ERROR, "x")::write),
                f,
                CONFIG))
        .isEqualTo(CallOutcome.UNDECLARED_FAILURE);
    assertThat(
            CallMessages.outcome(
                message(
                    f,
                    exception,
                    new TApplicationException(TApplicationException.UNKNOWN_METHOD, "x")::write),
                f,
                CONFIG))
        .isEqualTo(CallOutcome.APPLICATION_EXCEPTION);
  }

  @Test
  void theOutcomeOfAReplyIsReadFromItsResultStruct() throws Exception {
    TConfiguration config = new TConfiguration();
    assertThat(CallMessages.outcome(reply((short) 0), new TBinaryProtocol.Factory(), config))
        .isEqualTo(CallOutcome.SUCCESS);
    assertThat(CallMessages.outcome(reply((short) -1), new TBinaryProtocol.Factory(), config))
        .as("a void method's empty result")
        .isEqualTo(CallOutcome.SUCCESS);
    assertThat(CallMessages.outcome(reply((short) 1), new TBinaryProtocol.Factory(), config))
        .isEqualTo(CallOutcome.DECLARED_EXCEPTION);
  }

  /** A reply whose result struct holds field {@code id}, or nothing if {@code id < 0}. */
  private static ByteBuffer reply(short id) throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration());
    TProtocol p = new TBinaryProtocol.Factory().getProtocol(t);
    p.writeMessageBegin(new TMessage("m", TMessageType.REPLY, 1));
    p.writeStructBegin(new TStruct("result"));
    if (id >= 0) {
      p.writeFieldBegin(new TField("f", TType.I32, id));
      p.writeI32(7);
      p.writeFieldEnd();
    }
    p.writeFieldStop();
    p.writeStructEnd();
    p.writeMessageEnd();
    return t.payload();
  }
}
