package io.thriftnio.spring.boot;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TMultiplexedProcessor;
import org.apache.thrift.TProcessor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the services a server serves among the beans: every {@code TProcessor} bean, and every
 * {@link ThriftService} bean, wrapped in its generated processor.
 */
final class ServiceDiscovery {

  /**
   * One service found.
   *
   * @param name its name in a multiplexed processor
   * @param beanName the bean it came from
   * @param processor what serves it: a {@code TProcessor}, or a {@code TAsyncProcessor}
   */
  record Service(String name, String beanName, Object processor) {
    boolean async() {
      return processor instanceof TAsyncProcessor;
    }
  }

  private ServiceDiscovery() {}

  /** The services among the beans, in the order the beans were defined. */
  static List<Service> find(ListableBeanFactory beans) {
    Set<String> found = new HashSet<>();
    found.addAll(List.of(beans.getBeanNamesForType(TProcessor.class)));
    found.addAll(List.of(beans.getBeanNamesForType(TAsyncProcessor.class)));
    found.addAll(List.of(beans.getBeanNamesForAnnotation(ThriftService.class)));
    List<String> names = new ArrayList<>();
    for (String beanName : beans.getBeanDefinitionNames()) {
      if (found.remove(beanName)) {
        names.add(beanName);
      }
    }
    names.addAll(found); // singletons registered without a definition
    List<Service> services = new ArrayList<>();
    for (String beanName : names) {
      Object bean = beans.getBean(beanName);
      ThriftService annotation = beans.findAnnotationOnBean(beanName, ThriftService.class);
      String given = annotation == null || annotation.value().isEmpty() ? null : annotation.value();
      if (bean instanceof TAsyncProcessor || bean instanceof TProcessor) {
        Class<?> service = generatedService(bean.getClass().getEnclosingClass());
        String name = given != null ? given : service != null ? service.getSimpleName() : beanName;
        services.add(new Service(name, beanName, bean));
      } else {
        Class<?> iface = generatedInterface(beanName, bean);
        Class<?> service = iface.getDeclaringClass();
        String processor = iface.getSimpleName().equals("Iface") ? "Processor" : "AsyncProcessor";
        services.add(
            new Service(
                given != null ? given : service.getSimpleName(),
                beanName,
                wrap(beanName, bean, iface, nested(service, processor))));
      }
    }
    return services;
  }

  /**
   * What the server serves: the one service's processor, or a {@code TMultiplexedProcessor} of them
   * all.
   *
   * @return a {@code TProcessor} or a {@code TAsyncProcessor}, or {@code null} for no service
   * @throws IllegalStateException if two services share a name, or an asynchronous one would be
   *     multiplexed
   */
  static Object served(List<Service> services, boolean multiplexed) {
    if (services.isEmpty()) {
      return null;
    }
    if (services.size() == 1 && !multiplexed) {
      return services.get(0).processor();
    }
    Map<String, Service> byName = new LinkedHashMap<>();
    TMultiplexedProcessor all = new TMultiplexedProcessor();
    for (Service s : services) {
      if (s.async()) {
        throw new IllegalStateException(
            "thrift.server: the asynchronous service "
                + s.name()
                + " (bean '"
                + s.beanName()
                + "') cannot be multiplexed with "
                + names(services)
                + ": libthrift's TMultiplexedProcessor runs synchronous processors only; serve it"
                + " alone, or implement its Iface");
      }
      Service before = byName.putIfAbsent(s.name(), s);
      if (before != null) {
        throw new IllegalStateException(
            "thrift.server: two services named "
                + s.name()
                + " (beans '"
                + before.beanName()
                + "' and '"
                + s.beanName()
                + "'; expected: unique names, given with @ThriftService(\"name\"))");
      }
      all.registerProcessor(s.name(), (TProcessor) s.processor());
    }
    return all;
  }

  static List<String> names(List<Service> services) {
    return services.stream().map(Service::name).toList();
  }

  /** The generated {@code Iface} or {@code AsyncIface} the bean implements; exactly one. */
  private static Class<?> generatedInterface(String beanName, Object bean) {
    List<Class<?>> found = new ArrayList<>();
    for (Class<?> i : ClassUtils.getAllInterfacesAsSet(bean)) {
      String simple = i.getSimpleName();
      if ((simple.equals("Iface") || simple.equals("AsyncIface"))
          && generatedService(i.getDeclaringClass()) != null) {
        found.add(i);
      }
    }
    if (found.size() != 1) {
      throw new IllegalStateException(
          "@ThriftService bean '"
              + beanName
              + "' ("
              + bean.getClass().getName()
              + ") implements "
              + (found.isEmpty() ? "no generated Iface or AsyncIface" : found)
              + " (expected: exactly one generated Iface or AsyncIface, or a TProcessor)");
    }
    return found.get(0);
  }

  /** {@code type} if it is a generated service class (it has the nested Iface), else null. */
  private static Class<?> generatedService(Class<?> type) {
    if (type == null) {
      return null;
    }
    for (Class<?> nested : type.getDeclaredClasses()) {
      if (nested.isInterface() && nested.getSimpleName().equals("Iface")) {
        return type;
      }
    }
    return null;
  }

  static Class<?> nested(Class<?> service, String simpleName) {
    for (Class<?> nested : service.getDeclaredClasses()) {
      if (nested.getSimpleName().equals(simpleName)) {
        return nested;
      }
    }
    throw new IllegalStateException(
        service.getName() + " has no nested " + simpleName + " (expected: Thrift generated code)");
  }

  private static Object wrap(String beanName, Object bean, Class<?> iface, Class<?> processor) {
    try {
      Constructor<?> c = processor.getConstructor(iface);
      return c.newInstance(bean);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "cannot wrap bean '" + beanName + "' in " + processor.getName() + ": " + e, e);
    }
  }
}
