/**
 * Transport-neutral building blocks of thrift-nio: the server call's {@linkplain
 * io.thriftnio.core.ServerCallContext context} and {@linkplain io.thriftnio.core.ServerInterceptor
 * interceptors}, the {@linkplain io.thriftnio.core.ThriftServer server contract} with its
 * {@linkplain io.thriftnio.core.ServerBuilder builder base}, and the asynchronous {@linkplain
 * io.thriftnio.core.ThriftChannel client channel} with its {@linkplain
 * io.thriftnio.core.AsyncClients generated-client bridge}.
 *
 * <p>Nothing here imports Netty or Grizzly; the transport modules build on these types.
 */
package io.thriftnio.core;
