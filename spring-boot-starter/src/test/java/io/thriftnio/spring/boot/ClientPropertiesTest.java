package io.thriftnio.spring.boot;

import static io.thriftnio.spring.boot.ThriftAutoConfigurationTest.rootOrSelf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.testkit.gen.BenchService;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * The client settings that map {@code ClientOptions} beyond the timeouts: the wire kind (so a
 * Spring client calls a THeader-only or HTTP server, as the same starter serves), the HTTP path,
 * the frame size, the late-reply timeout; and interceptors chosen per client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientPropertiesTest {

  static final ApplicationContextRunner RUNNER =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ThriftAutoConfiguration.class))
          .withUserConfiguration(ThriftAutoConfigurationTest.OneService.class)
          .withPropertyValues(
              "thrift.server.port=0",
              "thrift.server.address=127.0.0.1",
              "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
              "thrift.clients.bench.local-server=true");

  static BenchService.Iface bench(
      org.springframework.context.ApplicationContext context, String name) {
    return context.getBean("thrift.clients." + name + ".iface", BenchService.Iface.class);
  }

  @Test
  void aClientSpeaksTheWireKindOfATHeaderOnlyServer() {
    RUNNER
        .withPropertyValues(
            "thrift.server.wire-kinds=header", "thrift.clients.bench.wire-kind=header")
        .run(
            context ->
                assertThat(bench(context, "bench").get_last_sale("H").symbol).isEqualTo("H@one"));
  }

  @Test
  void aClientPostsToTheHttpPathOfAnHttpOnlyServer() {
    RUNNER
        .withPropertyValues(
            "thrift.server.wire-kinds=http",
            "thrift.server.http-path=/thrift",
            "thrift.clients.bench.wire-kind=http",
            "thrift.clients.bench.http-path=/thrift")
        .run(
            context ->
                assertThat(bench(context, "bench").get_last_sale("P").symbol).isEqualTo("P@one"));
  }

  @Test
  void aChannelPoolSpeaksTHeaderToo() {
    RUNNER
        .withPropertyValues(
            "thrift.server.wire-kinds=header",
            "thrift.clients.bench.pool=channel",
            "thrift.clients.bench.wire-kind=header")
        .run(
            context ->
                assertThat(
                        context
                            .getBean(
                                "thrift.clients.bench.future-iface", BenchService.FutureIface.class)
                            .get_last_sale("F")
                            .get(20, TimeUnit.SECONDS)
                            .symbol)
                    .isEqualTo("F@one"));
  }

  @Test
  void theMaxFrameSizeBoundsTheClientsRequests() {
    RUNNER
        .withPropertyValues("thrift.clients.bench.max-frame-size=200")
        .run(
            context -> {
              BenchService.Iface client = bench(context, "bench");
              assertThat(client.get_last_sale("S").symbol).isEqualTo("S@one");
              assertThatThrownBy(() -> client.get_last_sale("S".repeat(300)))
                  .hasStackTraceContaining("maxFrameSize 200");
            });
  }

  @Test
  void refusedValuesFailTheStartUnderTheirPropertyPaths() {
    RUNNER
        .withPropertyValues("thrift.clients.bench.max-frame-size=-1")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo("thrift.clients.bench.max-frame-size: -1 (expected: > 0)"));
    // The pool builder's flat retryBudgetRatio and maxPerEndpoint, under their property paths.
    RUNNER
        .withPropertyValues("thrift.clients.bench.retry-budget-ratio=-1")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.retry-budget-ratio: -1.0 (expected: >= 0 and <= 1000)"));
    RUNNER
        .withPropertyValues("thrift.clients.bench.retry-budget-min-per-second=-1")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.retry-budget-min-per-second: -1 (expected: >= 0)"));
    // client-auth is the server's: the one ssl type refuses it on a client, by its path.
    RUNNER
        .withPropertyValues("thrift.clients.bench.ssl.client-auth=require")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .startsWith(
                        "thrift.clients.bench.ssl.client-auth: REQUIRE (expected: unset; a server"
                            + " setting"));
    RUNNER
        .withPropertyValues("thrift.clients.bench.max-per-endpoint=0")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo("thrift.clients.bench.max-per-endpoint: 0 (expected: > 0)"));
    RUNNER
        .withPropertyValues("thrift.clients.bench.late-reply-timeout=0s")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo("thrift.clients.bench.late-reply-timeout: PT0S (expected: > 0)"));
    RUNNER
        .withPropertyValues("thrift.clients.bench.http-path=/thrift")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .startsWith(
                        "thrift.clients.bench.http-path: \"/thrift\" (expected: no path with"
                            + " wireKind FRAMED"));
  }

  @Test
  void anAsyncPoolOfTheGeneratedAsyncClientsServesTheFutureAndAsyncIfaces() {
    RUNNER
        .withPropertyValues(
            "thrift.clients.bench.pool=async", "thrift.clients.bench.selector-threads=1")
        .run(
            context -> {
              assertThat(context.getBean("thrift.clients.bench.pool"))
                  .isInstanceOf(ThriftAsyncClientPool.class);
              assertThat(
                      context
                          .getBean(
                              "thrift.clients.bench.future-iface", BenchService.FutureIface.class)
                          .get_last_sale("A")
                          .get(20, TimeUnit.SECONDS)
                          .symbol)
                  .isEqualTo("A@one");
              assertThat(context).hasBean("thrift.clients.bench.async-iface");
            });
  }

  @Test
  void selectorThreadsOutsideAnAsyncPoolFailTheStart() {
    RUNNER
        .withPropertyValues("thrift.clients.bench.selector-threads=1")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.selector-threads: 1 (expected: unset; only pool"
                            + " async runs selector threads, this is pool client)"));
  }

  /** A PLAIN server that knows ada, without TLS (allowed here: loopback), and ada's client. */
  @Configuration(proxyBeanMethods = false)
  static class Sasl {
    @Bean
    ServerSasl serverSasl() {
      return ServerSasl.builder()
          .plain((user, password) -> user.equals("ada") && new String(password).equals("pw"))
          .plainWithoutTls(true)
          .build();
    }

    @Bean
    ClientSasl ada() {
      return ClientSasl.plain("ada", "pw".toCharArray());
    }

    @Bean
    ClientSasl mallory() {
      return ClientSasl.plain("mallory", "guess".toCharArray());
    }
  }

  @Test
  void aClientAuthenticatesWithItsClientSaslBeanToTheServerSaslBeansServer() {
    RUNNER
        .withUserConfiguration(Sasl.class)
        .withPropertyValues(
            "thrift.server.wire-kinds=sasl",
            "thrift.clients.bench.wire-kind=sasl",
            "thrift.clients.bench.sasl=ada",
            "thrift.clients.bad.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bad.local-server=true",
            "thrift.clients.bad.wire-kind=sasl",
            "thrift.clients.bad.sasl=mallory")
        .run(
            context -> {
              assertThat(bench(context, "bench").get_last_sale("K").symbol).isEqualTo("K@one");
              assertThatThrownBy(() -> bench(context, "bad").get_last_sale("K"))
                  .hasStackTraceContaining("SASL");
            });
  }

  @Test
  void aSaslNameThatIsNoClientSaslBeanFailsTheStartListingThem() {
    RUNNER
        .withUserConfiguration(Sasl.class)
        .withPropertyValues(
            "thrift.server.wire-kinds=sasl",
            "thrift.clients.bench.wire-kind=sasl",
            "thrift.clients.bench.sasl=eve")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.sasl: 'eve' (expected: the name of a ClientSasl bean;"
                            + " the application's are [ada, mallory])"));
  }

  @Test
  void aSaslServerWithoutAServerSaslBeanFailsTheStartSayingSo() {
    RUNNER
        .withPropertyValues("thrift.server.wire-kinds=sasl")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.server.wire-kinds: [SASL] (expected: a ServerSasl bean in the"
                            + " application with sasl among them, saying the mechanisms and who may"
                            + " connect; it has none)"));
  }

  static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  @Configuration(proxyBeanMethods = false)
  static class TwoInterceptors {
    @Bean
    @Order(1)
    ClientInterceptor audit() {
      return recorder("audit");
    }

    @Bean
    @Order(2)
    ClientInterceptor auth() {
      return recorder("auth");
    }

    static ClientInterceptor recorder(String name) {
      return new ClientInterceptor() {
        @Override
        public void beforeCall(ClientCallContext context) {
          EVENTS.add(name + ":" + context.methodName());
        }
      };
    }
  }

  @Test
  void aClientRunsTheInterceptorsItNamesInItsOrderAndAnotherEveryOne() {
    EVENTS.clear();
    RUNNER
        .withUserConfiguration(TwoInterceptors.class)
        .withPropertyValues(
            "thrift.clients.bench.interceptors=auth",
            "thrift.clients.all.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.all.local-server=true",
            "thrift.clients.none.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.none.local-server=true",
            "thrift.clients.none.interceptors=")
        .run(
            context -> {
              bench(context, "bench").fired();
              assertThat(EVENTS).containsExactly("auth:fired");
              EVENTS.clear();
              bench(context, "all").fired();
              assertThat(EVENTS).containsExactly("audit:fired", "auth:fired");
              EVENTS.clear();
              bench(context, "none").fired();
              assertThat(EVENTS).isEmpty();
            });
  }

  @Test
  void anInterceptorNameThatIsNoInterceptorBeanFailsTheStartListingThem() {
    RUNNER
        .withUserConfiguration(TwoInterceptors.class)
        .withPropertyValues("thrift.clients.bench.interceptors=auth,audti")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.interceptors[1]: 'audti' (expected: the name of a"
                            + " ClientInterceptor bean; the application's are [audit, auth])"));
  }
}
