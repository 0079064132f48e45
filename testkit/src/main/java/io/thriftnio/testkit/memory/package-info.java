/**
 * An in-memory transport: core's server call path ({@code CallPath}, {@code CallSequencer}, the
 * connection registry, the lifecycle) driven by connections that carry their bytes in memory, so
 * that the suites about the call path run without socket IO. {@link
 * io.thriftnio.testkit.memory.InMemoryThriftServer} is the server; {@link
 * io.thriftnio.testkit.conformance.RawConnection#open(java.net.InetSocketAddress)} connects to it
 * as to any server. gRPC's {@code io.grpc.inprocess} is the model.
 */
package io.thriftnio.testkit.memory;
