package io.thriftnio.core.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.settings.SettingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server's SASL settings: defaults, validation, and the PLAIN server of this library. */
@Timeout(10)
class ServerSaslTest {

  private static final PlainAuthenticator ALICE = (user, pw) -> new String(pw).equals("pw");

  @Test
  void defaults() {
    ServerSasl sasl = ServerSasl.builder().plain(ALICE).build();
    assertThat(sasl.qop()).containsExactly(SaslQop.AUTH);
    assertThat(sasl.negotiationTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(sasl.maxNegotiationMessageSize()).isEqualTo(1_048_576);
    assertThat(sasl.plainWithoutTls()).isFalse();
    assertThat(sasl.mechanisms()).containsExactly("PLAIN");
    assertThat(sasl.negotiationExecutor()).as("each server's own pool").isNull();
  }

  @Test
  void aNegotiationExecutorThatWouldDropAStepOrRunItOnTheIoThreadIsRefused() {
    for (java.util.concurrent.RejectedExecutionHandler handler :
        java.util.List.of(
            new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy(),
            new java.util.concurrent.ThreadPoolExecutor.DiscardOldestPolicy(),
            new java.util.concurrent.ThreadPoolExecutor.CallerRunsPolicy())) {
      java.util.concurrent.ThreadPoolExecutor pool =
          new java.util.concurrent.ThreadPoolExecutor(
              1,
              1,
              1,
              java.util.concurrent.TimeUnit.SECONDS,
              new java.util.concurrent.ArrayBlockingQueue<>(1),
              handler);
      try {
        assertThatThrownBy(
                () -> ServerSasl.builder().plain(ALICE).negotiationExecutor(pool).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("negotiationExecutor: " + pool + " with rejection handler ")
            .hasMessageContaining("(expected: a handler that rejects");
      } finally {
        pool.shutdown();
      }
    }
    java.util.concurrent.Executor mine = Runnable::run;
    assertThat(ServerSasl.builder().plain(ALICE).negotiationExecutor(mine).build())
        .extracting(ServerSasl::negotiationExecutor)
        .isSameAs(mine);
  }

  @Test
  void validation() {
    assertThatThrownBy(() -> ServerSasl.builder().build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("mechanisms: [] (expected: at least one");
    assertThatThrownBy(
            () -> ServerSasl.builder().plain(ALICE).negotiationTimeout(Duration.ZERO).build())
        .hasMessage("negotiationTimeout: PT0S (expected: > 0)");
    assertThatThrownBy(() -> ServerSasl.builder().plain(ALICE).maxNegotiationMessageSize(0).build())
        .hasMessage("maxNegotiationMessageSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> ServerSasl.builder().qop())
        .hasMessage("qop: [] (expected: at least one, no null)");
    assertThatThrownBy(() -> ServerSasl.builder().plain(ALICE).qop(SaslQop.AUTH_CONF).build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("qop: [AUTH_CONF] (expected: to include AUTH when PLAIN");
  }

  @Test
  void theAcceptedQopGoesToTheMechanismsInOrderOfPreference() throws Exception {
    ServerSasl sasl =
        ServerSasl.builder()
            .digestMd5("thrift", "localhost", callbacks -> {})
            .qop(SaslQop.AUTH_CONF, SaslQop.AUTH)
            .build();
    SaslServer digest = sasl.newSaslServer("DIGEST-MD5");
    String challenge = new String(digest.evaluateResponse(new byte[0]), StandardCharsets.UTF_8);
    assertThat(challenge).contains("qop=\"auth-conf,auth\"");
    assertThatThrownBy(() -> sasl.newSaslServer("PLAIN"))
        .isInstanceOf(SaslException.class)
        .hasMessage("Unsupported mechanism type PLAIN");
  }

  private static byte[] plain(String authzid, String user, String password) {
    return (authzid + "\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void plainAcceptsTheRightPasswordAsItsOwnAuthorizationId() throws Exception {
    SaslServer server = ServerSasl.builder().plain(ALICE).build().newSaslServer("PLAIN");
    assertThat(server.evaluateResponse(plain("", "alice", "pw"))).isEmpty();
    assertThat(server.isComplete()).isTrue();
    assertThat(server.getAuthorizationID()).isEqualTo("alice");
    assertThat(server.getNegotiatedProperty(Sasl.QOP)).isEqualTo("auth");
    assertThatThrownBy(() -> server.wrap(new byte[1], 0, 1))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void plainRefusals() throws Exception {
    ServerSasl sasl = ServerSasl.builder().plain(ALICE).build();
    Map<byte[], String> refused =
        Map.of(
            plain("", "alice", "wrong"),
            "PLAIN: authentication failed for alice",
            plain("bob", "alice", "pw"),
            "PLAIN: alice may not act as bob",
            plain("", "", "pw"),
            "PLAIN: empty user name or password",
            plain("", "alice", ""),
            "PLAIN: empty user name or password",
            "alice\0pw".getBytes(StandardCharsets.UTF_8),
            "PLAIN: malformed message of 8 bytes (expected: authzid NUL authcid NUL passwd)",
            new byte[] {0, 'a', 0, (byte) 0xff},
            "PLAIN: a field is not UTF-8");
    refused.forEach(
        (message, reason) ->
            assertThatThrownBy(() -> sasl.newSaslServer("PLAIN").evaluateResponse(message))
                .isInstanceOf(SaslException.class)
                .hasMessage(reason));
  }

  @Test
  void plainLetsTheAuthenticatorAllowAProxyUserAndReportsItsFailureApart() throws Exception {
    PlainAuthenticator proxy =
        new PlainAuthenticator() {
          @Override
          public boolean authenticate(String user, char[] password) throws Exception {
            if (user.equals("down")) {
              throw new java.io.IOException("user store unreachable");
            }
            return true;
          }

          @Override
          public boolean mayActAs(String user, String authorizationId) {
            return user.equals("gateway");
          }
        };
    ServerSasl sasl = ServerSasl.builder().plain(proxy).build();
    SaslServer server = sasl.newSaslServer("PLAIN");
    server.evaluateResponse(plain("alice", "gateway", "x"));
    assertThat(server.getAuthorizationID()).isEqualTo("alice");
    assertThatThrownBy(() -> sasl.newSaslServer("PLAIN").evaluateResponse(plain("", "down", "x")))
        .as("not the client's fault: not a SaslException, so the client is sent ERROR")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("user store unreachable");
  }
}
