package io.thriftnio.spring.boot;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Says once, when the application has started its beans, which of the starter's parts are off and
 * how to turn them on: no meters, no health or no info, because a module is missing from the class
 * path, or because the part's auto-configuration backed off where its module is present (excluded,
 * or ordered after a configuration that is no longer there). A part that is off for a reason the
 * user chose (no Actuator at all) is logged at INFO; one that should be on and is not at WARN.
 * Nothing is said for an application with neither server nor clients.
 */
final class StartupReport implements SmartInitializingSingleton {

  static final String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";
  static final String METHOD_TIMERS = "io.thriftnio.micrometer.ServerMeters";
  static final String HEALTH_INDICATOR =
      "org.springframework.boot.health.contributor.HealthIndicator";
  static final String INFO_CONTRIBUTOR = "org.springframework.boot.actuate.info.InfoContributor";

  private static final Logger log = LoggerFactory.getLogger(StartupReport.class);

  /** One line of the report. */
  record Line(boolean warn, String text) {}

  private final ConfigurableListableBeanFactory beans;
  private final boolean hasClients;
  private volatile List<Line> lines = List.of();

  StartupReport(ConfigurableListableBeanFactory beans, boolean hasClients) {
    this.beans = beans;
    this.hasClients = hasClients;
  }

  @Override
  public void afterSingletonsInstantiated() {
    lines = List.copyOf(lines());
    for (Line line : lines) {
      if (line.warn()) {
        log.warn(line.text());
      } else {
        log.info(line.text());
      }
    }
  }

  /** What was logged at the start. */
  List<Line> logged() {
    return lines;
  }

  private List<Line> lines() {
    List<Line> out = new ArrayList<>();
    boolean server = beans.getBeanNamesForType(ThriftServerLifecycle.class, true, false).length > 0;
    if (!server && !hasClients) {
      return out;
    }
    ClassLoader loader = beans.getBeanClassLoader();
    if (ClassUtils.isPresent(METER_REGISTRY, loader)) {
      boolean registry =
          beans.getBeanNamesForType(
                      ClassUtils.resolveClassName(METER_REGISTRY, loader), true, false)
                  .length
              > 0;
      boolean micrometer = ClassUtils.isPresent(METHOD_TIMERS, loader);
      if (registry && !micrometer) {
        out.add(
            new Line(
                false,
                "thrift-nio: no thrift.* meters: the application has a MeterRegistry but"
                    + " thrift-nio-micrometer is not on the class path (add the dependency"
                    + " io.thriftnio:thrift-nio-micrometer)"));
      } else if (!registry && micrometer) {
        out.add(
            new Line(
                true,
                "thrift-nio: no thrift.* meters: thrift-nio-micrometer is on the class path but the"
                    + " application has no MeterRegistry bean (add"
                    + " org.springframework.boot:spring-boot-starter-actuator, which makes one, or"
                    + " define a MeterRegistry bean)"));
      } else if (registry && !beans.containsBean("thriftMeterBinding")) {
        out.add(backedOff("thrift.* meters", ThriftMetricsAutoConfiguration.class));
      }
    }
    boolean health = ClassUtils.isPresent(HEALTH_INDICATOR, loader);
    boolean info = ClassUtils.isPresent(INFO_CONTRIBUTOR, loader);
    if (!health && !info) {
      out.add(
          new Line(
              false,
              "thrift-nio: no thriftServer or thriftClients health and no thrift in /actuator/info:"
                  + " Actuator is not on the class path (add the dependency"
                  + " org.springframework.boot:spring-boot-starter-actuator)"));
      return out;
    }
    if (!health) {
      out.add(
          new Line(
              true,
              "thrift-nio: no thriftServer or thriftClients health: Spring Boot's health module is"
                  + " not on the class path (add org.springframework.boot:spring-boot-starter-actuator,"
                  + " or org.springframework.boot:spring-boot-health)"));
    } else if ((server && !beans.containsBean("thriftServerHealthIndicator"))
        || (hasClients && !beans.containsBean("thriftClientsHealthIndicator"))) {
      out.add(
          backedOff(
              "thriftServer and thriftClients health", ThriftActuatorAutoConfiguration.class));
    }
    if (!info) {
      out.add(
          new Line(
              true,
              "thrift-nio: no thrift in /actuator/info: spring-boot-actuator is not on the class path"
                  + " (add org.springframework.boot:spring-boot-starter-actuator)"));
    } else if (!beans.containsBean("thriftInfoContributor")) {
      out.add(backedOff("thrift in /actuator/info", ThriftActuatorAutoConfiguration.class));
    }
    return out;
  }

  private static Line backedOff(String what, Class<?> configuration) {
    return new Line(
        true,
        "thrift-nio: no "
            + what
            + " although its modules are on the class path: "
            + configuration.getName()
            + " backed off (excluded, or its conditions did not match: start with --debug for"
            + " Spring Boot's conditions report)");
  }
}
