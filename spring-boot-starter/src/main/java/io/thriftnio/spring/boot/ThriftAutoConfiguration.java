package io.thriftnio.spring.boot;

import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.pool.EndpointSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The Thrift server and client pools of a Spring Boot application.
 *
 * <ul>
 *   <li>A {@link ThriftServerLifecycle} serving every {@code TProcessor} and {@link ThriftService}
 *       bean (several through a {@code TMultiplexedProcessor}), with the {@code ServerInterceptor}
 *       beans in their {@code @Order} and the {@code ServerSasl} bean, if any, for its {@code sasl}
 *       wire kind; none when there is no service bean (a client-only application), or with {@code
 *       thrift.server.enabled=false}.
 *   <li>For each {@code thrift.clients.<name>}, a pool bean and beans of the service's interfaces,
 *       qualified {@code <name>}, with the {@code ClientInterceptor} beans in their {@code @Order}.
 *   <li>The pools' {@link ClientIo} (Netty, else Grizzly), created with the first pool, unless the
 *       application defines its own.
 * </ul>
 */
@AutoConfiguration(afterName = ThriftAutoConfiguration.SSL_AUTO_CONFIGURATION)
@EnableConfigurationProperties(ThriftProperties.class)
public class ThriftAutoConfiguration {

  /** Boot's SSL bundles, which {@code thrift.server.ssl.bundle} and the clients' name. */
  static final String SSL_AUTO_CONFIGURATION =
      "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration";

  /** For Spring. */
  public ThriftAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(
      prefix = "thrift.server",
      name = "enabled",
      havingValue = "true",
      matchIfMissing = true)
  @Conditional(OnThriftServicesCondition.class)
  ThriftServerLifecycle thriftServerLifecycle(
      ThriftProperties properties,
      ListableBeanFactory beans,
      ObjectProvider<ServerInterceptor> interceptors,
      ObjectProvider<SslBundles> bundles,
      ObjectProvider<ThriftMeterBinding> meters,
      ObjectProvider<ServerSasl> sasl,
      ConfigurableEnvironment environment) {
    DependencyCheck.check();
    List<ServiceDiscovery.Service> services = ServiceDiscovery.find(beans);
    Object served = ServiceDiscovery.served(services, properties.server().multiplexed());
    ThriftServer server =
        ServerFactory.build(
            properties.server(),
            served,
            interceptors.orderedStream().toList(),
            bundles.getIfAvailable(),
            sasl.getIfAvailable());
    List<Consumer<ThriftServer>> onStart = new ArrayList<>();
    onStart.add(meters.getIfAvailable(() -> ThriftMeterBinding.NONE)::bindServer);
    return new ThriftServerLifecycle(
        server, ServiceDiscovery.names(services), environment, onStart);
  }

  @Bean(destroyMethod = "close")
  @Lazy
  @ConditionalOnMissingBean
  ClientIo thriftClientIo() {
    return IoLibraries.clientIo(IoLibraries.resolve(null, "thrift.clients"));
  }

  @Bean(ClientRegistrar.POOL_FACTORY)
  PoolFactory thriftPoolFactory(
      ThriftProperties properties,
      ObjectProvider<ClientIo> io,
      ObjectProvider<ClientInterceptor> interceptors,
      ObjectProvider<ThriftMeterBinding> meters,
      ObjectProvider<SslBundles> bundles,
      ObjectProvider<ThriftServerLifecycle> server,
      ListableBeanFactory beans,
      ThriftPools pools) {
    DependencyCheck.check();
    return new PoolFactory(
        properties,
        io::getObject,
        interceptors.orderedStream().toList(),
        name -> clientInterceptor(beans, name),
        name -> clientSasl(beans, name),
        meters.getIfAvailable(() -> ThriftMeterBinding.NONE),
        bundles.getIfAvailable(),
        () -> {
          ThriftServerLifecycle s = server.getIfAvailable();
          if (s == null) {
            throw new IllegalStateException(
                "local-server: true (expected: false; this application serves no Thrift service,"
                    + " or thrift.server.enabled is false)");
          }
          return s;
        },
        name -> endpointSource(beans, name),
        pools);
  }

  private static ClientInterceptor clientInterceptor(ListableBeanFactory beans, String name) {
    if (!beans.containsBean(name) || !beans.isTypeMatch(name, ClientInterceptor.class)) {
      throw new IllegalStateException(
          "'"
              + name
              + "' (expected: the name of a ClientInterceptor bean; the application's are "
              + List.of(beans.getBeanNamesForType(ClientInterceptor.class))
              + ")");
    }
    return beans.getBean(name, ClientInterceptor.class);
  }

  private static ClientSasl clientSasl(ListableBeanFactory beans, String name) {
    if (!beans.containsBean(name) || !beans.isTypeMatch(name, ClientSasl.class)) {
      throw new IllegalStateException(
          "'"
              + name
              + "' (expected: the name of a ClientSasl bean; the application's are "
              + List.of(beans.getBeanNamesForType(ClientSasl.class))
              + ")");
    }
    return beans.getBean(name, ClientSasl.class);
  }

  private static EndpointSource endpointSource(ListableBeanFactory beans, String name) {
    if (!beans.containsBean(name) || !beans.isTypeMatch(name, EndpointSource.class)) {
      throw new IllegalStateException(
          "endpoint-source: '"
              + name
              + "' (expected: the name of an EndpointSource bean; the application's are "
              + List.of(beans.getBeanNamesForType(EndpointSource.class))
              + ")");
    }
    return beans.getBean(name, EndpointSource.class);
  }

  @Bean
  StartupReport thriftStartupReport(
      ConfigurableListableBeanFactory beans, ConfigurableEnvironment environment) {
    return new StartupReport(beans, OnThriftClientsCondition.any(environment));
  }

  @Bean
  ThriftPools thriftPools() {
    return new ThriftPools();
  }

  @Bean
  static ClientRegistrar thriftClientRegistrar() {
    return new ClientRegistrar();
  }
}
