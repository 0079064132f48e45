package io.thriftnio.spring.boot;

import static io.thriftnio.spring.boot.ThriftAutoConfigurationTest.rootOrSelf;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.tls.ClientAuth;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslStoreBundle;

/** TLS from Spring SSL bundles, on the server and on a pool. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThriftTlsTest {

  /** "server": the test PKI's server keys; "client": trusts the test CA, no client certificate. */
  static SslBundles bundles() {
    TestPki pki = TestPki.shared();
    DefaultSslBundleRegistry registry = new DefaultSslBundleRegistry();
    registry.registerBundle(
        "server",
        SslBundle.of(
            SslStoreBundle.NONE,
            null,
            null,
            SslBundle.DEFAULT_PROTOCOL,
            SslManagerBundle.of(pki.serverKeys(), pki.trust())));
    registry.registerBundle(
        "client",
        SslBundle.of(
            SslStoreBundle.NONE,
            null,
            null,
            SslBundle.DEFAULT_PROTOCOL,
            SslManagerBundle.of(pki.clientKeys(), pki.trust())));
    return registry;
  }

  @Test
  void aServerAndAPoolOnSslBundles() {
    ThriftAutoConfigurationTest.RUNNER
        .withUserConfiguration(ThriftAutoConfigurationTest.OneService.class)
        .withBean(SslBundles.class, ThriftTlsTest::bundles)
        .withPropertyValues(
            "thrift.server.ssl.bundle=server",
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.local-server=true",
            "thrift.clients.bench.ssl.bundle=client")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ThriftServerLifecycle server = context.getBean(ThriftServerLifecycle.class);
              assertThat(server.server().config().tls()).isNotNull();
              assertThat(server.server().config().tls().clientAuth()).isEqualTo(ClientAuth.NONE);
              BenchService.Iface client =
                  context.getBean("thrift.clients.bench.iface", BenchService.Iface.class);
              assertThat(client.get_last_sale("T").symbol).isEqualTo("T@one");
              assertThat(server.server().stats().tlsFailures()).isZero();
            });
  }

  @Test
  void anUnknownBundleFailsTheStartNamingTheProperty() {
    ThriftAutoConfigurationTest.RUNNER
        .withUserConfiguration(ThriftAutoConfigurationTest.OneService.class)
        .withBean(SslBundles.class, ThriftTlsTest::bundles)
        .withPropertyValues("thrift.server.ssl.bundle=nope")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.server.ssl.bundle: 'nope' (expected: a bundle of"
                            + " spring.ssl.bundle.*)"));
  }

  @Test
  void clientAuthWithoutABundleIsRefused() {
    ThriftAutoConfigurationTest.RUNNER
        .withUserConfiguration(ThriftAutoConfigurationTest.OneService.class)
        .withPropertyValues("thrift.server.ssl.client-auth=require")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .startsWith("thrift.server.ssl.client-auth: REQUIRE (expected: unset;"));
  }
}
