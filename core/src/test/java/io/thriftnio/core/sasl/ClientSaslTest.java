package io.thriftnio.core.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.settings.SettingException;
import java.time.Duration;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ClientSaslTest {

  @Test
  void defaultsAreAuthOnlyAndTenSeconds() {
    ClientSasl sasl = ClientSasl.digestMd5("alice", "pw".toCharArray(), "thrift", "db1");

    assertThat(sasl.mechanism()).isEqualTo("DIGEST-MD5");
    assertThat(sasl.qop()).containsExactly(SaslQop.AUTH);
    assertThat(sasl.properties().get(Sasl.QOP)).isEqualTo("auth");
    assertThat(sasl.negotiationTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(ClientSasl.DEFAULT_NEGOTIATION_TIMEOUT).isEqualTo(Duration.ofSeconds(10));
    assertThat(sasl.subject()).isEmpty();
    assertThat(sasl.authorizationId()).isEmpty();
    assertThat(sasl.protocol()).isEqualTo("thrift");
    assertThat(sasl.serverName()).isEqualTo("db1");
  }

  @Test
  void qopIsSentInTheOrderOfPreference() {
    ClientSasl sasl =
        ClientSasl.gssapi(new Subject(), "hive", "metastore")
            .withQop(SaslQop.AUTH_CONF, SaslQop.AUTH_INT, SaslQop.AUTH);

    assertThat(sasl.properties().get(Sasl.QOP)).isEqualTo("auth-conf,auth-int,auth");
    assertThat(sasl.qop()).containsExactly(SaslQop.AUTH_CONF, SaslQop.AUTH_INT, SaslQop.AUTH);
    assertThat(
            ClientSasl.of("GSSAPI", null, "hive", "m", Map.of(Sasl.QOP, "auth-int,auth"), null)
                .qop())
        .containsExactly(SaslQop.AUTH_INT, SaslQop.AUTH);
  }

  @Test
  void badValuesAreRefusedInTheProjectsForm() {
    ClientSasl sasl = ClientSasl.plain("alice", "pw".toCharArray());

    assertThatThrownBy(() -> sasl.withNegotiationTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("negotiationTimeout: PT-1S (expected: > 0)");
    assertThatThrownBy(() -> sasl.withQop(SaslQop.AUTH, SaslQop.AUTH))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("qop: [AUTH, AUTH] (expected: at least one, no nulls, no repeats)");
    assertThatThrownBy(() -> sasl.withQop())
        .hasMessage("qop: [] (expected: at least one, no nulls, no repeats)");
    assertThatThrownBy(() -> ClientSasl.gssapi(null, "thrift", "h"))
        .hasMessage("subject: null (expected: not null)");
    assertThatThrownBy(() -> ClientSasl.of("X", null, "p", "h", Map.of(Sasl.QOP, "best"), null))
        .hasMessage("saslQop: best (expected: auth, auth-int or auth-conf)");
  }

  @Test
  void thePasswordIsCopiedAndNeverShown() throws SaslException {
    char[] password = "s3cret-Pw".toCharArray();
    ClientSasl sasl = ClientSasl.plain("alice", password);
    java.util.Arrays.fill(password, 'x'); // the caller clears its array

    assertThat(sasl.toString()).doesNotContain("s3cret").contains("PLAIN");
    assertThat(ClientOptions.builder().wireKind(WireKind.SASL).sasl(sasl).build().toString())
        .doesNotContain("s3cret");
    SaslClient client = sasl.newSaslClient();
    byte[] initial = client.evaluateChallenge(new byte[0]);
    // PLAIN's initial response: authzid NUL authcid NUL password, with the password as given.
    assertThat(new String(initial, java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("\0alice\0s3cret-Pw");
  }

  @Test
  void anUnknownMechanismFailsWhenAConnectionAsksForIt() {
    ClientSasl sasl = ClientSasl.of("NO-SUCH-MECH", null, "thrift", "h", Map.of(), null);

    assertThatThrownBy(sasl::newSaslClient)
        .isInstanceOf(SaslException.class)
        .hasMessage(
            "mechanism: NO-SUCH-MECH (expected: one a registered SaslClientFactory provides)");
  }

  @Test
  void clientOptionsWantSaslSettingsExactlyWithTheSaslWireKind() {
    ClientSasl sasl = ClientSasl.plain("alice", "pw".toCharArray());

    assertThatThrownBy(() -> ClientOptions.builder().wireKind(WireKind.SASL).build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("sasl: null (expected: set when wireKind is SASL");
    assertThatThrownBy(() -> ClientOptions.builder().sasl(sasl).build())
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "sasl: "
                + sasl
                + " (expected: none with wireKind FRAMED, which would ignore it; set"
                + " wireKind(SASL) or drop sasl)");
    ClientOptions options = ClientOptions.builder().wireKind(WireKind.SASL).sasl(sasl).build();
    assertThat(options.sasl()).containsSame(sasl);
    assertThat(options.toBuilder().build().sasl()).containsSame(sasl);
    assertThat(ClientOptions.defaults().sasl()).isEmpty();
  }
}
