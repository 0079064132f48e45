/**
 * OpenTelemetry tracing for thrift-nio: {@link io.thriftnio.opentelemetry.ThriftTracing} gives a
 * {@link io.thriftnio.core.ServerInterceptor} and a {@link io.thriftnio.core.ClientInterceptor}
 * that record a span per call and carry the trace context across THeader and HTTP connections in
 * their headers.
 */
package io.thriftnio.opentelemetry;
