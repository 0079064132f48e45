package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One pooled channel connection of an endpoint ({@link EndpointChannels}) and the calls it carries.
 */
final class Conn {
  final InetSocketAddress endpoint;
  final EndpointChannels owner;
  final ThriftChannel channel;
  // Set by the first of its calls whose failure counted against the endpoint: once per
  // connection.
  final AtomicBoolean failureCounted = new AtomicBoolean();
  int inFlight; // guarded by the owner's lock
  long idleSince = System.nanoTime(); // guarded by the owner's lock
  boolean removed; // guarded by the owner's lock

  Conn(EndpointChannels owner, ThriftChannel channel) {
    this.endpoint = owner.endpoint;
    this.owner = owner;
    this.channel = channel;
  }
}
