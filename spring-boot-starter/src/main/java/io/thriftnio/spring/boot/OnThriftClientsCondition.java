package io.thriftnio.spring.boot;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when at least one {@code thrift.clients.<name>} is configured. */
final class OnThriftClientsCondition implements Condition {

  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    return any(context.getEnvironment());
  }

  /** Whether {@code environment} configures at least one client. */
  static boolean any(Environment environment) {
    return Binder.get(environment)
        .bind("thrift.clients", Bindable.mapOf(String.class, Object.class))
        .map(clients -> !clients.isEmpty())
        .orElse(false);
  }
}
