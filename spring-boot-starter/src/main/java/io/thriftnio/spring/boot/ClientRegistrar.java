package io.thriftnio.spring.boot;

import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.spring.boot.ThriftClientProperties.PoolType;
import java.util.Map;
import java.util.function.Function;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Registers, for each {@code thrift.clients.<name>}, the pool and the beans of its service's
 * interfaces, each qualified by {@code <name>}:
 *
 * <ul>
 *   <li>{@code pool: client}: {@code thrift.clients.<name>.pool}, a {@code
 *       ThriftClientPool<Service.Client>}, and {@code thrift.clients.<name>.iface}, the {@code
 *       Service.Iface} that borrows a client per call;
 *   <li>{@code pool: channel}: {@code thrift.clients.<name>.pool}, a {@code
 *       ThriftChannelPool<Service.Client>}, {@code thrift.clients.<name>.async-iface} and, when
 *       generated, {@code thrift.clients.<name>.future-iface};
 *   <li>{@code pool: async}: {@code thrift.clients.<name>.pool}, a {@code
 *       ThriftAsyncClientPool<Service.AsyncClient>}, and the same interface beans as {@code
 *       channel}.
 * </ul>
 *
 * <p>The beans are defined from the names and service classes alone; each pool is built when its
 * bean is created, by the {@link PoolFactory} bean.
 */
final class ClientRegistrar
    implements BeanDefinitionRegistryPostProcessor, EnvironmentAware, BeanFactoryAware {

  static final String POOL_FACTORY = "thriftPoolFactory";

  private Environment environment;
  private BeanFactory beanFactory;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
    this.beanFactory = beanFactory;
  }

  @Override
  public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
    Map<String, ThriftClientProperties> clients =
        Binder.get(environment)
            .bind("thrift.clients", Bindable.mapOf(String.class, ThriftClientProperties.class))
            .orElse(Map.of());
    clients.forEach((name, p) -> register(registry, name, p));
  }

  private void register(BeanDefinitionRegistry registry, String name, ThriftClientProperties p) {
    String prefix = "thrift.clients." + name;
    Class<?> client = PoolFactory.ClientClasses.client(prefix, p.service());
    Class<?> service = p.service();
    String poolBean = prefix + ".pool";
    boolean channel = p.pool() == PoolType.CHANNEL;
    boolean async = p.pool() == PoolType.ASYNC;
    Class<?> poolType =
        async
            ? ThriftAsyncClientPool.class
            : channel ? ThriftChannelPool.class : ThriftClientPool.class;
    Class<?> pooled = async ? PoolFactory.ClientClasses.asyncClient(prefix, service) : client;
    RootBeanDefinition pool = new RootBeanDefinition(poolType);
    pool.setTargetType(ResolvableType.forClassWithGenerics(poolType, pooled));
    pool.setInstanceSupplier(
        () -> beanFactory.getBean(POOL_FACTORY, PoolFactory.class).create(name));
    pool.setDestroyMethodName("close");
    pool.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
    registry.registerBeanDefinition(poolBean, pool);
    if (async) {
      Class<?> asyncIface = ServiceDiscovery.nested(service, "AsyncIface");
      proxy(
          registry,
          name,
          poolBean,
          asyncIface,
          "async-iface",
          pl -> ((ThriftAsyncClientPool<?>) pl).asyncIface(asyncIface));
      Class<?> future = futureIface(service);
      if (future != null) {
        proxy(
            registry,
            name,
            poolBean,
            future,
            "future-iface",
            pl -> ((ThriftAsyncClientPool<?>) pl).futureIface(future));
      }
    } else if (channel) {
      proxy(
          registry,
          name,
          poolBean,
          ServiceDiscovery.nested(service, "AsyncIface"),
          "async-iface",
          pl ->
              ((ThriftChannelPool<?>) pl)
                  .asyncIface(ServiceDiscovery.nested(service, "AsyncIface")));
      Class<?> future = futureIface(service);
      if (future != null) {
        proxy(
            registry,
            name,
            poolBean,
            future,
            "future-iface",
            pl -> ((ThriftChannelPool<?>) pl).futureIface(future));
      }
    } else {
      Class<?> iface = ServiceDiscovery.nested(service, "Iface");
      proxy(
          registry, name, poolBean, iface, "iface", pl -> ((ThriftClientPool<?>) pl).iface(iface));
    }
  }

  private void proxy(
      BeanDefinitionRegistry registry,
      String name,
      String poolBean,
      Class<?> type,
      String suffix,
      Function<Object, Object> fromPool) {
    RootBeanDefinition proxy = new RootBeanDefinition(type);
    proxy.setInstanceSupplier(() -> fromPool.apply(beanFactory.getBean(poolBean)));
    proxy.setDependsOn(poolBean);
    proxy.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
    registry.registerBeanDefinition("thrift.clients." + name + "." + suffix, proxy);
  }

  private static Class<?> futureIface(Class<?> service) {
    for (Class<?> nested : service.getDeclaredClasses()) {
      if (nested.getSimpleName().equals("FutureIface")) {
        return nested;
      }
    }
    return null;
  }
}
