package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.wire.FirstBytes.Shape;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.transport.TMemoryBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The one place that tells what a peer's first bytes look like (issue 38, item 7). */
@Timeout(10)
class FirstBytesTest {

  private static byte[] bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return out;
  }

  private static Shape shape(byte[] b) {
    return FirstBytes.shape(b, b.length);
  }

  private static Shape shape(String ascii) {
    return shape(ascii.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void thriftShapesAreToldFromTheirFirstBytes() {
    assertThat(shape(bytes(0x80, 0x01, 0x00, 0x01))).isEqualTo(Shape.UNFRAMED_BINARY);
    assertThat(shape(bytes(0x82, 0x21, 0x01, 0x04))).isEqualTo(Shape.UNFRAMED_COMPACT);
    assertThat(shape("[1,\"echo\",1,1,{")).isEqualTo(Shape.UNFRAMED_JSON);
    assertThat(shape(bytes(0, 0, 0, 0x1b, 0x80, 0x01, 0, 1))).isEqualTo(Shape.FRAMED_BINARY);
    assertThat(shape(bytes(0, 0, 0, 0x1b, 0x82, 0x21))).isEqualTo(Shape.FRAMED_COMPACT);
    assertThat(shape(bytes(0, 0, 0, 0x1b, '[', '1'))).isEqualTo(Shape.FRAMED_JSON);
    assertThat(shape(bytes(0, 0, 0, 0x41, 0x0f, 0xff, 0, 0))).isEqualTo(Shape.THEADER);
    assertThat(shape(bytes(0, 0, 0, 0x45, 0, 0, 0, 0x41, 0x0f, 0xff)))
        .isEqualTo(Shape.THEADER_IN_FRAMED);
    assertThat(shape(bytes(0x01, 0, 0, 0, 5, 'P', 'L'))).isEqualTo(Shape.SASL_START);
  }

  @Test
  void foreignShapesAreNamed() {
    assertThat(shape("POST / HTTP/1.1")).isEqualTo(Shape.HTTP_REQUEST);
    assertThat(shape("GET / HTTP/1.1")).isEqualTo(Shape.HTTP_REQUEST);
    assertThat(shape("HTTP/1.1 400 Bad Request")).isEqualTo(Shape.HTTP_RESPONSE);
    assertThat(shape("SSH-2.0-OpenSSH")).isEqualTo(Shape.SSH);
    assertThat(shape("*1\r\n$4\r\nPING")).isEqualTo(Shape.REDIS);
    assertThat(shape(bytes(0x16, 0x03, 0x01, 0x02, 0x00))).isEqualTo(Shape.TLS_HANDSHAKE);
    assertThat(shape(bytes(0x15, 0x03, 0x03, 0x00, 0x02))).isEqualTo(Shape.TLS_ALERT);
  }

  @Test
  void whatIsNotRecognisedIsNotGuessed() {
    assertThat(shape(bytes(0x81, 0xff, 0xff, 0xff))).isNull();
    assertThat(shape(bytes(0, 0, 0, 9))).as("a length alone: its message not here yet").isNull();
    assertThat(shape(bytes(0x80))).isNull();
    assertThat(shape(bytes(0x82, 0x01, 0, 0))).as("compact type 0 does not exist").isNull();
    assertThat(shape(bytes(0x16, 0x02, 0, 0))).isNull();
  }

  @Test
  void theServerNamesTheSettingThatServesThePeer() {
    EnumSet<WireKind> framed = EnumSet.of(WireKind.FRAMED);
    assertThat(FirstBytes.serverHint(bytes(0x80, 0x01, 0x00, 0x01, 0, 0), 6, framed))
        .isEqualTo(
            "first bytes 80 01 00 01 look like an unframed TBinaryProtocol message (a call): to"
                + " serve them, accept WireKind.UNFRAMED on this server"
                + " (ServerBuilder.wireKinds(FRAMED, UNFRAMED))");
    assertThat(FirstBytes.serverHint(bytes(0, 0, 0, 0x41, 0x0f, 0xff), 6, framed))
        .isEqualTo(
            "first bytes 00 00 00 41 look like a THeader frame: to serve them, accept"
                + " WireKind.HEADER on this server (ServerBuilder.wireKinds(FRAMED, HEADER))");
    assertThat(FirstBytes.serverHint(bytes(0x01, 0, 0, 0, 5, 'P'), 6, framed))
        .endsWith(
            "accept WireKind.SASL on this server (ServerBuilder.wireKinds(FRAMED, SASL) with"
                + " ServerBuilder.sasl(..))");
    assertThat(FirstBytes.serverHint(bytes(0x16, 0x03, 0x03, 0x01), 4, framed))
        .contains("a TLS client on a plaintext port? Serve TLS with ServerBuilder.tls(..)");
    assertThat(
            FirstBytes.serverHint(
                bytes(0, 0, 0, 0x1b, 0x80, 0x01, 0, 1), 8, EnumSet.of(WireKind.UNFRAMED)))
        .isEqualTo(
            "first bytes 00 00 00 1b look like a framed TBinaryProtocol message (a call): to"
                + " serve them, accept WireKind.FRAMED on this server"
                + " (ServerBuilder.wireKinds(FRAMED, UNFRAMED))");
    assertThat(FirstBytes.serverHint(bytes(0, 0, 0, 0x1b, 0x80, 0x01, 0, 1), 8, framed))
        .as("nothing to advise: the kind is accepted, its own rules refused the bytes")
        .isNull();
  }

  @Test
  void theClientNamesTheServerItSeemsToTalkTo() {
    assertThat(FirstBytes.replyHint(bytes(0x80, 0x01, 0x00, 0x02), 4, WireKind.FRAMED))
        .isEqualTo(
            "the first bytes 80 01 00 02 look like an unframed TBinaryProtocol message (a reply):"
                + " is the server unframed? (ClientOptions.wireKind(WireKind.UNFRAMED); this"
                + " client's is FRAMED)");
    assertThat(
            FirstBytes.replyHint(
                "HTTP/1.1 400".getBytes(StandardCharsets.US_ASCII), 4, WireKind.FRAMED))
        .contains("an HTTP response: is the server http? (ClientOptions.wireKind(WireKind.HTTP)");
    assertThat(FirstBytes.replyHint(bytes(0x15, 0x03, 0x03, 0x00), 4, WireKind.FRAMED))
        .endsWith("a TLS alert: is the server TLS-only? (ClientOptions.tls(..))");
    assertThat(FirstBytes.replyHint(bytes(0, 0, 0x33, 0x16, 0x80, 0x01, 0, 2), 8, WireKind.FRAMED))
        .as("a framed reply over the limit: nothing to advise")
        .isNull();
  }

  @Test
  void aMessageInAnotherProtocolIsNamedWithBoth() throws Exception {
    assertThat(FirstBytes.otherProtocol(bytes(0x82, 0x21, 0x01, 0x04), 4, "TBinaryProtocol"))
        .isEqualTo("TCompactProtocol (first bytes 82 21 01 04)");
    assertThat(FirstBytes.otherProtocol(bytes(0x80, 0x01, 0, 2), 4, "TBinaryProtocol")).isNull();
    assertThat(FirstBytes.otherProtocol(bytes(0, 0, 0, 4), 4, "TBinaryProtocol"))
        .as("non-strict binary: not told")
        .isNull();
    TMemoryBuffer t = new TMemoryBuffer(1);
    assertThat(FirstBytes.protocolName(new TBinaryProtocol(t))).isEqualTo("TBinaryProtocol");
    assertThat(FirstBytes.protocolName(new TCompactProtocol(t))).isEqualTo("TCompactProtocol");
    assertThat(FirstBytes.protocolName(new TJSONProtocol(t))).isEqualTo("TJSONProtocol");
  }
}
