package io.thriftnio.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.settings.SettingException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsSettingsTest {

  private static KeyManagerFactory keys() throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(null, new char[0]);
    return kmf;
  }

  private static TrustManagerFactory trust() throws Exception {
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init((java.security.KeyStore) null);
    return tmf;
  }

  @Test
  void serverDefaults() throws Exception {
    ServerTls tls = ServerTls.builder(keys()).build();
    assertThat(tls.clientAuth()).isEqualTo(ClientAuth.NONE);
    assertThat(tls.trustManagerFactory()).isNull();
    assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(tls.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(tls.cipherSuites()).isEmpty();
    assertThat(tls.provider()).isEqualTo(TlsProvider.JDK);
  }

  @Test
  void clientDefaults() {
    ClientTls tls = ClientTls.builder().build();
    assertThat(tls.hostnameVerification()).isTrue();
    assertThat(tls.serverName()).isNull();
    assertThat(tls.trustManagerFactory()).isNull();
    assertThat(tls.keyManagerFactory()).isNull();
    assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(tls.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(tls.provider()).isEqualTo(TlsProvider.JDK);
    assertThat(tls.peerHost(new InetSocketAddress("127.0.0.1", 1))).isEqualTo("127.0.0.1");
    assertThat(
            ClientTls.builder()
                .serverName("svc.example")
                .build()
                .peerHost(new InetSocketAddress("127.0.0.1", 1)))
        .isEqualTo("svc.example");
  }

  @Test
  void validationMessagesNameTheSettingAndValue() throws Exception {
    assertThatThrownBy(() -> ServerTls.builder(null).build())
        .hasMessage("keyManagerFactory: null (expected: not null)");
    assertThatThrownBy(() -> ServerTls.builder(keys()).handshakeTimeout(Duration.ZERO).build())
        .hasMessage("handshakeTimeout: PT0S (expected: > 0)");
    assertThatThrownBy(() -> ServerTls.builder(keys()).clientAuth(ClientAuth.REQUIRE).build())
        .isInstanceOf(SettingException.class)
        .hasMessageContaining("trustManagerFactory: null, clientAuth: REQUIRE");
    assertThatThrownBy(() -> ServerTls.builder(keys()).protocols(List.of()).build())
        .hasMessageStartingWith("protocols: [] (expected: a non-empty list");
    assertThatThrownBy(() -> ClientTls.builder().protocols(List.of("TLSv9")).build())
        .hasMessageStartingWith("protocols: [TLSv9] (expected: among");
    assertThatThrownBy(() -> ClientTls.builder().handshakeTimeout(Duration.ofSeconds(-1)).build())
        .hasMessage("handshakeTimeout: PT-1S (expected: > 0)");
    assertThatThrownBy(() -> ClientTls.builder().serverName(" ").build())
        .hasMessageStartingWith("serverName: ' '");
    assertThatThrownBy(() -> ClientTls.builder().cipherSuites(null).build())
        .hasMessageStartingWith("cipherSuites: null");
    assertThat(
            ServerTls.builder(keys())
                .clientAuth(ClientAuth.OPTIONAL)
                .trustManagerFactory(trust())
                .build()
                .clientAuth())
        .isEqualTo(ClientAuth.OPTIONAL);
  }

  @Test
  void jdkEnginesCarryTheSettings() throws Exception {
    ClientTls client = ClientTls.builder().trustManagerFactory(trust()).build();
    SSLContext context = JdkTls.clientContext(client, "test");
    SSLEngine byName = JdkTls.clientEngine(context, client, new InetSocketAddress("localhost", 9));
    assertThat(byName.getUseClientMode()).isTrue();
    assertThat(byName.getSSLParameters().getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
    assertThat(byName.getSSLParameters().getServerNames()).hasSize(1);
    assertThat(Arrays.asList(byName.getEnabledProtocols()))
        .containsExactlyInAnyOrder("TLSv1.3", "TLSv1.2");
    SSLEngine byIp = JdkTls.clientEngine(context, client, new InetSocketAddress("127.0.0.1", 9));
    assertThat(byIp.getSSLParameters().getServerNames()).isNullOrEmpty();
    ClientTls off = ClientTls.builder().hostnameVerification(false).build();
    assertThat(
            JdkTls.clientEngine(context, off, new InetSocketAddress("127.0.0.1", 9))
                .getSSLParameters()
                .getEndpointIdentificationAlgorithm())
        .isNull();

    ServerTls server =
        ServerTls.builder(keys())
            .clientAuth(ClientAuth.REQUIRE)
            .trustManagerFactory(trust())
            .protocols(List.of("TLSv1.3"))
            .build();
    SSLEngine engine = JdkTls.serverEngine(JdkTls.serverContext(server, "test"), server);
    assertThat(engine.getNeedClientAuth()).isTrue();
    assertThat(engine.getEnabledProtocols()).containsExactly("TLSv1.3");
    assertThatThrownBy(
            () ->
                JdkTls.clientContext(
                    ClientTls.builder().provider(TlsProvider.OPENSSL).build(), "Grizzly"))
        .hasMessage("tls provider: OPENSSL (expected: JDK): Grizzly uses the JDK's TLS");
  }
}
