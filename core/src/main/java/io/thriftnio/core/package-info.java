/**
 * Transport-neutral building blocks of thrift-nio: the {@linkplain io.thriftnio.core.Framing wire
 * rules} of Thrift's framed transport, frame-bounded {@link
 * org.apache.thrift.transport.TTransport}s, {@linkplain io.thriftnio.core.ProcessorInvoker
 * processor invocation}, the {@linkplain io.thriftnio.core.ThriftServer server contract} with its
 * {@linkplain io.thriftnio.core.ServerBuilder builder base}, and the asynchronous {@linkplain
 * io.thriftnio.core.ThriftChannel client channel} with its {@linkplain
 * io.thriftnio.core.AsyncClients generated-client bridge}.
 *
 * <p>Nothing here imports Netty or Grizzly; the transport modules build on these types.
 */
package io.thriftnio.core;
