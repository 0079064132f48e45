package io.thriftnio.pool;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared connections of one endpoint in a {@link MultiplexedPool} as calls borrow them, under
 * the endpoint's lock ({@link EndpointUpkeep} holds the books and what the evictor and the counters
 * do with them): calls to different endpoints never contend, and nothing slow (connecting, closing,
 * a user's validator) runs under it. A call takes the least loaded connection below {@code
 * maxInFlight} among those that owe no late reply of a timed-out call; when none has room it may
 * reserve a connect; failing that it takes one that owes a late reply; otherwise it waits for a
 * release on this endpoint. A connection past its age ({@link ConnectionAge}) takes no new call: it
 * leaves the books when idle, or when its last call is released.
 */
final class EndpointChannels extends EndpointUpkeep {

  EndpointChannels(InetSocketAddress endpoint, int maxInFlight) {
    super(endpoint, maxInFlight);
  }

  /**
   * Takes a slot on the least loaded open connection, or reserves a connect when {@code mayConnect}
   * says the limits allow one; {@code null} when neither. Closed connections found on the way are
   * removed and handed to {@code dead} for closing.
   */
  Grant take(int maxPerEndpoint, CapacityGate mayConnect, List<Conn> dead) {
    return take(maxPerEndpoint, mayConnect, dead, true);
  }

  /**
   * {@link #take(int, CapacityGate, List)}; {@code behindLateReply}: whether a connection that owes
   * the late reply of a timed-out call may take the call when nothing else can (the caller's last
   * resort: the async fast path says no, so that its call goes to a connector, which may connect).
   */
  Grant take(
      int maxPerEndpoint, CapacityGate mayConnect, List<Conn> dead, boolean behindLateReply) {
    lock.lock();
    try {
      return takeLocked(maxPerEndpoint, mayConnect, dead, behindLateReply);
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@link #take}, or when neither is possible, waits until a release on this endpoint, a wake-up
   * or {@code nanos} pass, and returns {@code null}. The look and the wait are one step under the
   * lock, so a release between them cannot go unseen.
   */
  Grant takeOrAwait(int maxPerEndpoint, CapacityGate mayConnect, List<Conn> dead, long nanos)
      throws InterruptedException {
    lock.lock();
    try {
      Grant grant = takeLocked(maxPerEndpoint, mayConnect, dead, true);
      if (grant != null) {
        return grant;
      }
      waiting++;
      try {
        released.awaitNanos(nanos);
      } finally {
        waiting--;
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private Grant takeLocked(
      int maxPerEndpoint, CapacityGate mayConnect, List<Conn> dead, boolean behindLateReply) {
    if (retired) {
      return null;
    }
    Conn best = null;
    Conn owing = null; // the least loaded of those owing a late reply
    long now = System.nanoTime();
    for (int i = conns.size() - 1; i >= 0; i--) {
      Conn c = conns.get(i);
      if (!c.channel.isOpen()) {
        // Its calls have failed or will; whoever releases them later finds it off the books.
        if (remove(c)) {
          dead.add(c);
        }
        continue;
      }
      if (c.retiring) {
        // Its server drains: no new call; it leaves when its last call ends (release).
        if (c.inFlight == 0 && remove(c)) {
          dead.add(c);
        }
        continue;
      }
      if (c.over(now)) {
        // Aged: no new call; an idle one closes now, a busy one when its last call ends.
        if (c.inFlight == 0 && remove(c)) {
          c.aged = true;
          dead.add(c);
        }
        continue;
      }
      if (c.inFlight >= maxInFlight) {
        continue;
      }
      // A call sent where a timed-out call's reply is still owed would wait behind it.
      if (c.channel.abandonedCalls() > 0) {
        owing = owing == null || c.inFlight < owing.inFlight ? c : owing;
      } else if (best == null || c.inFlight < best.inFlight) {
        best = c;
      }
    }
    if (best != null) {
      return grant(best);
    }
    if (conns.size() + connecting < maxPerEndpoint && mayConnect.tryReserve()) {
      connecting++;
      return new Grant(null, false);
    }
    // Behind a late reply rather than not at all.
    return owing == null || !behindLateReply ? null : grant(owing);
  }

  private static Grant grant(Conn c) {
    boolean fresh = c.inFlight == 0;
    c.inFlight++;
    return new Grant(c, fresh);
  }

  /**
   * For the evictor: reserves a connect while fewer than {@code minIdle} connections are open or
   * connecting here and {@code mayConnect} allows one.
   */
  boolean reserveTopUp(int minIdle, CapacityGate mayConnect) {
    lock.lock();
    try {
      if (conns.size() + connecting < minIdle && mayConnect.tryReserve()) {
        connecting++;
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A reserved connect succeeded: the connection joins, carrying the caller's call, to retire after
   * {@code lifetimeNanos} (0: never).
   */
  Conn connected(ThriftChannel channel, long lifetimeNanos) {
    Conn c = new Conn(this, channel, lifetimeNanos);
    c.inFlight = 1;
    lock.lock();
    try {
      connecting--;
      conns.add(c);
      if (waiting > 0 && maxInFlight > 1) {
        released.signal(); // it has room for more calls than the one it carries
      }
      return c;
    } finally {
      lock.unlock();
    }
  }

  /** A reserved connect failed or was abandoned. */
  void connectFailed() {
    lock.lock();
    try {
      connecting--;
      released.signal(); // a waiter may now reserve the connect itself
    } finally {
      lock.unlock();
    }
  }

  /**
   * A call ended. Returns whether the caller must close the connection: it failed, closed, was
   * condemned ({@code remove}) or aged with no call left, and this call took it off the books.
   */
  boolean release(Conn c, boolean remove) {
    lock.lock();
    try {
      c.inFlight--;
      long now = System.nanoTime();
      if (c.calls() == 0) {
        c.idleSince = now; // its last call ended, though the evictor may be checking it
      }
      boolean aging = c.inFlight == 0 && c.over(now);
      boolean removed =
          (remove || !c.channel.isOpen() || ((retired || c.retiring) && c.inFlight == 0) || aging)
              && remove(c);
      if (removed && aging && !remove && c.channel.isOpen()) {
        c.aged = true; // closed for its age alone, counted so
      }
      if (waiting > 0) {
        released.signal();
      }
      return removed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The endpoint left the pool's source: no call takes a slot here any more, waiters wake (and go
   * elsewhere), and the idle connections are taken off the books and returned for closing; busy
   * ones leave when their last call ends ({@link #release}).
   */
  List<Conn> retire() {
    lock.lock();
    try {
      retired = true;
      List<Conn> idle = new ArrayList<>();
      for (Conn c : new ArrayList<>(conns)) {
        if (c.inFlight == 0 && remove(c)) {
          idle.add(c);
        }
      }
      released.signalAll();
      return idle;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The endpoint's server drains: its connections take no new call; the idle ones are taken off the
   * books and returned for closing, busy ones leave when their last call ends ({@link #release}).
   * Connections opened later (after a probe) are not touched.
   */
  List<Conn> retireConnections() {
    lock.lock();
    try {
      List<Conn> idle = new ArrayList<>();
      for (Conn c : new ArrayList<>(conns)) {
        c.retiring = true;
        if (c.inFlight == 0 && remove(c)) {
          idle.add(c);
        }
      }
      released.signalAll();
      return idle;
    } finally {
      lock.unlock();
    }
  }

  /** {@code c}'s server drains: it takes no new call and closes once its calls end. */
  void retire(Conn c) {
    lock.lock();
    try {
      c.retiring = true;
    } finally {
      lock.unlock();
    }
  }

  /** Whether the endpoint left the pool's source. */
  boolean isRetired() {
    lock.lock();
    try {
      return retired;
    } finally {
      lock.unlock();
    }
  }

  /** Whether a retired endpoint has nothing left: no connection, no connect under way. */
  boolean isDrained() {
    lock.lock();
    try {
      return retired && conns.isEmpty() && connecting == 0;
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiter: capacity changed elsewhere (a connection closed, the pool closed). */
  void wakeAll() {
    lock.lock();
    try {
      if (waiting > 0) {
        released.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }
}
