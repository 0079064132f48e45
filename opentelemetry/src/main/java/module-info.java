/**
 * thrift-nio's OpenTelemetry tracing: a span per call on servers and clients, and the trace context
 * carried across THeader and HTTP connections in their headers.
 */
module io.thriftnio.opentelemetry {
  requires transitive io.thriftnio.core;
  // ThriftTracing.create takes an OpenTelemetry: the API is part of this module's API; the
  // context module (Context, propagators) is used inside only.
  requires transitive io.opentelemetry.api;
  requires io.opentelemetry.context;
  // Instrumenter and the RPC semantic conventions (automatic modules), used inside only.
  requires io.opentelemetry.instrumentation_api;
  requires io.opentelemetry.instrumentation_api_incubator;
  requires org.slf4j;

  exports io.thriftnio.opentelemetry;
}
