package io.thriftnio.spring.boot;

import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.ConfigurationCondition;

/** Matches when the application has a service to serve: a processor or a {@link ThriftService}. */
final class OnThriftServicesCondition extends AnyNestedCondition {

  OnThriftServicesCondition() {
    super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
  }

  @ConditionalOnBean(annotation = ThriftService.class)
  static final class AnnotatedBean {}

  @ConditionalOnBean(TProcessor.class)
  static final class Processor {}

  @ConditionalOnBean(TAsyncProcessor.class)
  static final class AsyncProcessor {}
}
