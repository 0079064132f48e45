package io.thriftnio.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TMultiplexedProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMultiplexedProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/** Processor discovery, multiplexing, client beans, interceptor order, property errors. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThriftAutoConfigurationTest {

  static final ApplicationContextRunner RUNNER =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ThriftAutoConfiguration.class))
          .withPropertyValues("thrift.server.port=0", "thrift.server.address=127.0.0.1");

  /** A handler whose last sale names it, to tell services apart. */
  static class Named extends BenchHandler {
    private final String name;

    Named(String name) {
      this.name = name;
    }

    @Override
    public TradeReport get_last_sale(String symbol) {
      return new TradeReport(symbol + "@" + name, 1.0, 1, 1);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OneService {
    @Bean
    @ThriftService
    BenchService.Iface bench() {
      return new Named("one");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoServices {
    @Bean
    @ThriftService("first")
    BenchService.Iface first() {
      return new Named("first");
    }

    @Bean
    @ThriftService("second")
    BenchService.Processor<BenchService.Iface> second() {
      return new BenchService.Processor<>(new Named("second"));
    }
  }

  @Test
  void servesAnAnnotatedIfaceBeanPlainAndInjectsTheClientIface() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.local-server=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ThriftServerLifecycle server = context.getBean(ThriftServerLifecycle.class);
              assertThat(server.state()).isEqualTo(ThriftServerLifecycle.State.SERVING);
              assertThat(server.services()).containsExactly("BenchService");
              assertThat(server.server().config().processor())
                  .isInstanceOf(BenchService.Processor.class);
              int port = server.localAddress().orElseThrow().getPort();
              assertThat(context.getEnvironment().getProperty("local.thrift.server.port"))
                  .isEqualTo(String.valueOf(port));
              // plain framed binary, as a stock client calls it
              try (TSocket socket = new TSocket("127.0.0.1", port)) {
                socket.open();
                BenchService.Client plain =
                    new BenchService.Client(new TBinaryProtocol(new TFramedTransport(socket)));
                assertThat(plain.get_last_sale("A").symbol).isEqualTo("A@one");
              }
              BenchService.Iface injected =
                  context.getBean("thrift.clients.bench.iface", BenchService.Iface.class);
              assertThat(injected.get_last_sale("B").symbol).isEqualTo("B@one");
              assertThat(context.getBean("thrift.clients.bench.pool"))
                  .isInstanceOf(ThriftClientPool.class);
            });
  }

  /** Constructor injection by type and qualifier. */
  record Injected(@Qualifier("bench") BenchService.Iface bench) {}

  @Test
  void constructorInjectionByQualifierAndAChannelPoolsFutureIface() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withBean(Injected.class)
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.local-server=true",
            "thrift.clients.other.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.other.pool=channel",
            "thrift.clients.other.local-server=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Injected.class).bench().get_last_sale("C").symbol)
                  .isEqualTo("C@one");
              assertThat(context.getBean("thrift.clients.other.pool"))
                  .isInstanceOf(ThriftChannelPool.class);
              BenchService.FutureIface future =
                  context.getBean(
                      "thrift.clients.other.future-iface", BenchService.FutureIface.class);
              assertThat(future.get_last_sale("D").get(10, TimeUnit.SECONDS).symbol)
                  .isEqualTo("D@one");
            });
  }

  @Test
  void severalServicesAreMultiplexedUnderTheirNames() {
    RUNNER
        .withUserConfiguration(TwoServices.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ThriftServerLifecycle server = context.getBean(ThriftServerLifecycle.class);
              assertThat(server.services()).containsExactly("first", "second");
              assertThat(server.server().config().processor())
                  .isInstanceOf(TMultiplexedProcessor.class);
              int port = server.localAddress().orElseThrow().getPort();
              try (TSocket socket = new TSocket("127.0.0.1", port)) {
                socket.open();
                TProtocol protocol = new TBinaryProtocol(new TFramedTransport(socket));
                assertThat(
                        new BenchService.Client(new TMultiplexedProtocol(protocol, "first"))
                            .get_last_sale("E")
                            .symbol)
                    .isEqualTo("E@first");
                assertThat(
                        new BenchService.Client(new TMultiplexedProtocol(protocol, "second"))
                            .get_last_sale("F")
                            .symbol)
                    .isEqualTo("F@second");
              }
            });
  }

  @Test
  void oneServiceIsMultiplexedWhenAskedWithTheGeneratedServiceName() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.multiplexed=true")
        .run(
            context -> {
              ThriftServerLifecycle server = context.getBean(ThriftServerLifecycle.class);
              assertThat(server.server().config().processor())
                  .isInstanceOf(TMultiplexedProcessor.class);
              int port = server.localAddress().orElseThrow().getPort();
              try (TSocket socket = new TSocket("127.0.0.1", port)) {
                socket.open();
                TProtocol protocol = new TBinaryProtocol(new TFramedTransport(socket));
                BenchService.Client client =
                    new BenchService.Client(new TMultiplexedProtocol(protocol, "BenchService"));
                assertThat(client.get_last_sale("G").symbol).isEqualTo("G@one");
              }
            });
  }

  @Test
  void anIfaceBeanWithoutTheAnnotationIsNotServed() {
    RUNNER
        .withBean("asyncBench", BenchService.AsyncIface.class, AsyncBenchHandler::new)
        .run(context -> assertThat(context).doesNotHaveBean(ThriftServerLifecycle.class));
  }

  @Configuration(proxyBeanMethods = false)
  static class NotGenerated {
    @Bean
    @ThriftService
    Runnable notAService() {
      return () -> {};
    }
  }

  @Test
  void anAnnotatedBeanThatIsNoServiceIsRefused() {
    RUNNER
        .withUserConfiguration(NotGenerated.class)
        .run(
            context ->
                assertThat(rootMessage(context.getStartupFailure()))
                    .startsWith("@ThriftService bean 'notAService'")
                    .contains("implements no generated Iface or AsyncIface"));
  }

  @Test
  void anAnnotatedAsyncIfaceBeanIsServedOnGrizzly() {
    RUNNER
        .withUserConfiguration(AsyncService.class)
        .withPropertyValues("thrift.server.io-library=grizzly")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ThriftServerLifecycle server = context.getBean(ThriftServerLifecycle.class);
              assertThat(server.server().config().asyncProcessor())
                  .isInstanceOf(BenchService.AsyncProcessor.class);
              assertThat(server.server().toString()).startsWith("GrizzlyThriftServer{");
              assertThat(callLastSale(server.localAddress().orElseThrow(), "H")).isEqualTo("H");
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class AsyncService {
    @Bean
    @ThriftService
    BenchService.AsyncIface asyncBench() {
      return new AsyncBenchHandler();
    }
  }

  @Test
  void anAsyncServiceCannotBeMultiplexed() {
    RUNNER
        .withUserConfiguration(OneService.class, AsyncService.class)
        .run(
            context ->
                assertThat(rootMessage(context.getStartupFailure()))
                    .startsWith("thrift.server: the asynchronous service BenchService")
                    .contains("TMultiplexedProcessor runs synchronous processors only"));
  }

  @Test
  void twoServicesOfOneNameAreRefusedNamingBothBeans() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withBean(
            "againProcessor",
            BenchService.Processor.class,
            () -> new BenchService.Processor<>(new Named("p")))
        .run(
            context ->
                assertThat(rootMessage(context.getStartupFailure()))
                    .contains("two services named BenchService")
                    .contains("'bench'")
                    .contains("'againProcessor'"));
  }

  @Test
  void ioTransportListsEveryNettyTransportType() {
    // The starter's copy (a Grizzly-only application has no NettyTransportType to bind).
    assertThat(
            java.util.Arrays.stream(ThriftServerProperties.IoTransport.values())
                .map(Enum::name)
                .toList())
        .containsExactlyElementsOf(
            java.util.Arrays.stream(io.thriftnio.netty.NettyTransportType.values())
                .map(Enum::name)
                .toList());
  }

  @Test
  void netty41OnTheClassPathFailsTheStartSayingWhichPropertyToSet() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withClassLoader(
            new org.springframework.boot.test.context.FilteredClassLoader(
                DependencyCheck.NETTY_42_CLASS))
        .run(
            context ->
                assertThat(rootMessage(context.getStartupFailure()))
                    .startsWith("thrift-nio-netty needs Netty 4.2")
                    .contains("<netty.version>4.2.18.Final</netty.version>"));
  }

  @Test
  void aPortInUseFailsTheStartNamingTheAddress() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .run(
            first -> {
              int port =
                  first.getBean(ThriftServerLifecycle.class).localAddress().orElseThrow().getPort();
              RUNNER
                  .withUserConfiguration(OneService.class)
                  .withPropertyValues("thrift.server.port=" + port)
                  .run(
                      second ->
                          assertThat(rootOrSelf(second.getStartupFailure()))
                              .startsWith("thrift.server: cannot listen on ")
                              .contains(":" + port));
            });
  }

  @Test
  void noServiceNoServer() {
    RUNNER.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(ThriftServerLifecycle.class);
        });
  }

  @Test
  void disabledServerServesNothing() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(ThriftServerLifecycle.class));
  }

  @Test
  void serverSettingsReachTheBuilder() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues(
            "thrift.server.io-strategy=same-thread",
            "thrift.server.io-threads=2",
            "thrift.server.max-frame-size=1000",
            "thrift.server.drain-timeout=3s",
            "thrift.server.max-connection-age=10m",
            "thrift.server.max-connection-age-grace=30s",
            "thrift.server.wire-kinds=framed,http",
            "thrift.server.http-path=/rpc",
            "thrift.server.health-path=/health",
            "thrift.server.protocol=compact")
        .run(
            context -> {
              var config = context.getBean(ThriftServerLifecycle.class).server().config();
              assertThat(config.ioStrategy()).hasToString("SAME_THREAD");
              assertThat(config.ioThreads()).isEqualTo(2);
              assertThat(config.maxFrameSize()).isEqualTo(1000);
              assertThat(config.drainTimeout()).hasSeconds(3);
              assertThat(config.maxConnectionAge()).hasMinutes(10);
              assertThat(config.maxConnectionAgeGrace()).hasSeconds(30);
              assertThat(config.wireKinds()).hasSize(2);
              assertThat(config.httpPath()).isEqualTo("/rpc");
              assertThat(config.healthPath()).isEqualTo("/health");
              assertThat(config.inputProtocolFactory().getClass().getName())
                  .contains("TCompactProtocol");
            });
  }

  @Test
  void nettysIoTransportIsChosenByNameAndRefusedWithGrizzly() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.io-transport=nio")
        .run(
            context ->
                // The server names its IO transport in its toString (and its start line).
                assertThat(context.getBean(ThriftServerLifecycle.class).server().toString())
                    .startsWith("NettyThriftServer{")
                    .contains(", NIO, "));
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.io-transport=epoll", "thrift.server.io-library=grizzly")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.server.io-transport: EPOLL (expected: unset; a Netty setting,"
                            + " ignored with io-library grizzly)"));
  }

  @Test
  void aServerValueTheBuilderRefusesFailsWithThePropertyPath() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.max-frame-size=-1")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo("thrift.server.max-frame-size: -1 (expected: > 0)"));
  }

  @Test
  void boundComputingCallsIsOnUnlessTheServerIsToldOtherwise() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .run(
            context ->
                assertThat(
                        context
                            .getBean(ThriftServerLifecycle.class)
                            .server()
                            .config()
                            .boundComputingCalls())
                    .isTrue());
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.bound-computing-calls=false")
        .run(
            context ->
                assertThat(
                        context
                            .getBean(ThriftServerLifecycle.class)
                            .server()
                            .config()
                            .boundComputingCalls())
                    .isFalse());
  }

  @Test
  void queueTimeTargetReachesTheServerAndANegativeOneIsRefusedWithThePropertyPath() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.queue-time-target=20ms")
        .run(
            context ->
                assertThat(
                        context
                            .getBean(ThriftServerLifecycle.class)
                            .server()
                            .config()
                            .queueTimeTarget())
                    .hasMillis(20));
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.queue-time-target=0")
        .run(
            context ->
                assertThat(
                        context
                            .getBean(ThriftServerLifecycle.class)
                            .server()
                            .config()
                            .queueTimeTarget())
                    .isZero());
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues("thrift.server.queue-time-target=-1ms")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.server.queue-time-target: PT-0.001S (expected: >= 0, 0 = off)"));
  }

  @Test
  void aSettingIgnoredInTheConfigurationIsRefusedWithThePropertyPath() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues(
            "thrift.server.io-strategy=same-thread", "thrift.server.worker-threads=8")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .startsWith("thrift.server.worker-threads: 8 (expected: unset;"));
  }

  @Test
  void maxConnectionAgeRetiresThePoolsConnectionsBetweenCalls() {
    RUNNER
        .withUserConfiguration(OneService.class)
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.local-server=true",
            "thrift.clients.bench.max-connection-age=50ms")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              BenchService.Iface bench =
                  context.getBean("thrift.clients.bench.iface", BenchService.Iface.class);
              ThriftClientPool<?> pool =
                  context.getBean("thrift.clients.bench.pool", ThriftClientPool.class);
              long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
              while (pool.stats().aged() < 2 && System.nanoTime() - deadline < 0) {
                bench.get_last_sale("A"); // each call must succeed, aged connection or not
              }
              assertThat(pool.stats().aged()).as("%s", pool.stats()).isGreaterThanOrEqualTo(2);
              assertThat(pool.stats().invalidated()).isZero();
            });
  }

  @Test
  void aClientValueTheBuilderRefusesFailsWithThePropertyPath() {
    RUNNER
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.endpoints=127.0.0.1:9",
            "thrift.clients.bench.call-timeout=-1s")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo("thrift.clients.bench.call-timeout: PT-1S (expected: > 0)"));
  }

  @Test
  void aNegativeMaxConnectionAgeFailsWithThePropertyPath() {
    RUNNER
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.endpoints=127.0.0.1:9",
            "thrift.clients.bench.max-connection-age=-1s")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.max-connection-age: PT-1S (expected: >= 0, 0 = off)"));
  }

  @Test
  void aClientNeedsExactlyOneEndpointSourceAndAServiceClass() {
    RUNNER
        .withPropertyValues("thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .contains("expected: exactly one of endpoints, dns, local-server"));
    RUNNER
        .withPropertyValues("thrift.clients.bench.endpoints=127.0.0.1:9")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .startsWith("thrift.clients.bench.service: null (expected:"));
    RUNNER
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.endpoints=nohost")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.endpoints[0]: 'nohost' (expected: host:port, port 1"
                            + " to 65535)"));
  }

  @Test
  void anEndpointSourceBeanFeedsThePoolThatNamesIt() {
    InetSocketAddress endpoint = new InetSocketAddress("127.0.0.1", 9);
    RUNNER
        .withBean(
            "fromZooKeeper",
            io.thriftnio.pool.EndpointSource.class,
            () -> io.thriftnio.pool.EndpointSource.of(endpoint))
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.endpoint-source=fromZooKeeper")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ThriftClientPool<?> pool =
                  context.getBean("thrift.clients.bench.pool", ThriftClientPool.class);
              assertThat(pool.endpoints()).containsExactly(endpoint);
            });
    RUNNER
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.endpoint-source=nothing")
        .run(
            context ->
                assertThat(rootOrSelf(context.getStartupFailure()))
                    .isEqualTo(
                        "thrift.clients.bench.endpoint-source: 'nothing' (expected: the name of an"
                            + " EndpointSource bean; the application's are [])"));
  }

  static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  @Configuration(proxyBeanMethods = false)
  static class Interceptors {
    @Bean
    @Order(2)
    ServerInterceptor second() {
      return recorder("server-2");
    }

    @Bean
    @Order(1)
    ServerInterceptor first() {
      return recorder("server-1");
    }

    @Bean
    @Order(2)
    ClientInterceptor clientSecond() {
      return clientRecorder("client-2");
    }

    @Bean
    @Order(1)
    ClientInterceptor clientFirst() {
      return clientRecorder("client-1");
    }

    static ServerInterceptor recorder(String name) {
      return new ServerInterceptor() {
        @Override
        public void beforeCall(ServerCallContext context) {
          EVENTS.add(name);
        }
      };
    }

    static ClientInterceptor clientRecorder(String name) {
      return new ClientInterceptor() {
        @Override
        public void beforeCall(ClientCallContext context) {
          EVENTS.add(name);
        }
      };
    }
  }

  @Test
  void interceptorBeansRunInTheirOrder() {
    EVENTS.clear();
    RUNNER
        .withUserConfiguration(OneService.class, Interceptors.class)
        .withPropertyValues(
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.local-server=true")
        .run(
            context -> {
              context.getBean("thrift.clients.bench.iface", BenchService.Iface.class).fired();
              assertThat(EVENTS).containsExactly("client-1", "client-2", "server-1", "server-2");
            });
  }

  static String callLastSale(InetSocketAddress address, String symbol) throws Exception {
    try (TSocket socket = new TSocket("127.0.0.1", address.getPort())) {
      socket.open();
      return new BenchService.Client(new TBinaryProtocol(new TFramedTransport(socket)))
          .get_last_sale(symbol)
          .symbol;
    }
  }

  static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getMessage();
  }

  /** The innermost of our messages: the first that starts with thrift. */
  static String rootOrSelf(Throwable t) {
    String found = null;
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null && c.getMessage().startsWith("thrift.")) {
        found = c.getMessage();
      }
    }
    return found == null ? String.valueOf(t) : found;
  }
}
