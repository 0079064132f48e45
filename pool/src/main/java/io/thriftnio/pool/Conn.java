package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One pooled channel connection of an endpoint and the calls it carries: a record of the state
 * machine its owner {@link EndpointChannels} runs. Its mutable fields are guarded by the owner's
 * private lock and changed only by the owner; the pool reads {@link #channel}, {@link #endpoint}
 * and {@link #owner} (to give a slot back to the endpoint that lent it, which may have left the
 * source meanwhile).
 */
final class Conn {
  final InetSocketAddress endpoint;
  final EndpointChannels owner;
  final ThriftChannel channel;
  // Set by the first of its calls whose failure counted against the endpoint: once per
  // connection.
  final AtomicBoolean failureCounted = new AtomicBoolean();
  int inFlight; // guarded by the owner's lock: calls, plus the evictor's check while it runs
  // Guarded by the owner's lock: 1 while the evictor checks it idle (counted in inFlight, so that
  // nothing closes it meanwhile), which is no call: stats, loads and the idle clock leave it out.
  int checking;
  long idleSince = System.nanoTime(); // guarded by the owner's lock
  boolean removed; // guarded by the owner's lock
  // When it retires (System.nanoTime()), if `ages`: it then takes no new call, and closes once its
  // calls are done.
  private final long retireAt;
  private final boolean ages;
  boolean aged; // guarded by the owner's lock: taken off the books for its age
  // Guarded by the owner's lock: its server drains; no new call, closed once its calls are done.
  boolean retiring;

  // What the channel said of itself when last looked at (look()), outside the owner's lock: the
  // owner's decisions read these under it. A fresh connection is open and owes nothing.
  private volatile boolean open = true;
  private volatile boolean owing;

  /** {@code lifetimeNanos}: from {@link ConnectionAge#lifetimeNanos()}, 0 for no ageing. */
  Conn(EndpointChannels owner, ThriftChannel channel, long lifetimeNanos) {
    this.endpoint = owner.endpoint;
    this.owner = owner;
    this.channel = channel;
    this.ages = lifetimeNanos > 0;
    this.retireAt = idleSince + lifetimeNanos;
  }

  /** Calls in flight, the evictor's check left out; under the owner's lock. */
  int calls() {
    return inFlight - checking;
  }

  /** Whether it has outlived its lifetime at {@code now} ({@code System.nanoTime()}). */
  boolean over(long now) {
    return ages && now - retireAt >= 0;
  }

  /**
   * Reads the channel's own state: whether it is open, whether it owes the late reply of a
   * timed-out call. Never under the owner's lock: the channel may be a user's.
   */
  void look() {
    boolean isOpen = channel.isOpen();
    boolean owes = channel.abandonedCalls() > 0;
    // Written only on a change: borrowers on many threads look at the same connection. A channel
    // never reopens, so the record only ever goes to closed: a look that read "open" just before
    // another thread's read "closed" cannot write the older answer over the newer one.
    if (!isOpen && open) {
      open = false;
    }
    if (owing != owes) {
      owing = owes;
    }
  }

  /** Whether the channel was open when last looked at. */
  boolean open() {
    return open;
  }

  /** Whether the channel owed a late reply when last looked at. */
  boolean owing() {
    return owing;
  }
}
