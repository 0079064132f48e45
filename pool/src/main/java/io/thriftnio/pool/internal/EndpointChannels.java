package io.thriftnio.pool.internal;

import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shared connections of one endpoint in a {@link MultiplexedPool}, under a lock of their own:
 * calls to different endpoints never contend, and nothing slow (connecting, closing, a user's
 * validator) runs under it. A call takes the least loaded connection below {@code maxInFlight}
 * among those that owe no late reply of a timed-out call; when none has room it may reserve a
 * connect; failing that it takes one that owes a late reply; otherwise it waits for a release on
 * this endpoint.
 */
final class EndpointChannels {
  final InetSocketAddress endpoint;
  private final int maxInFlight;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  private final List<Conn> conns = new ArrayList<>(); // guarded by lock
  private int connecting; // guarded by lock
  private int waiting; // guarded by lock
  private boolean retired; // guarded by lock: the endpoint left the source

  EndpointChannels(InetSocketAddress endpoint, int maxInFlight) {
    this.endpoint = endpoint;
    this.maxInFlight = maxInFlight;
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

  private Grant takeLocked(
      int maxPerEndpoint, CapacityGate mayConnect, List<Conn> dead, boolean behindLateReply) {
    if (retired) {
      return null;
    }
    Conn best = null;
    Conn owing = null; // the least loaded of those owing a late reply
    for (int i = conns.size() - 1; i >= 0; i--) {
      Conn c = conns.get(i);
      if (!c.channel.isOpen()) {
        // Its calls have failed or will; whoever releases them later finds it off the books.
        if (remove(c)) {
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

  /** A reserved connect succeeded: the connection joins, carrying the caller's call. */
  Conn connected(ThriftChannel channel) {
    Conn c = new Conn(this, channel);
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
   * A call ended. Returns whether the caller must close the connection: it failed, closed or was
   * condemned ({@code remove}), and this call took it off the books.
   */
  boolean release(Conn c, boolean remove) {
    lock.lock();
    try {
      c.inFlight--;
      if (c.inFlight == 0) {
        c.idleSince = System.nanoTime();
      }
      boolean removed =
          (remove || !c.channel.isOpen() || (retired && c.inFlight == 0)) && remove(c);
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

  /**
   * The evictor is done with a connection it reserved ({@link #reserveIdle}): gives the slot back
   * without restarting its idle clock, or takes it off the books ({@code remove}) for the caller to
   * close. Returns whether the caller must close it.
   */
  boolean endIdleCheck(Conn c, boolean remove) {
    lock.lock();
    try {
      c.inFlight--;
      boolean removed =
          (remove || !c.channel.isOpen() || (retired && c.inFlight == 0)) && remove(c);
      if (waiting > 0) {
        released.signal();
      }
      return removed;
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

  /**
   * Takes {@code c} off the books if it is idle and still on them: for the caller to close. A busy
   * one stays until its calls are released.
   */
  boolean removeIfIdle(Conn c) {
    lock.lock();
    try {
      return c.inFlight == 0 && remove(c);
    } finally {
      lock.unlock();
    }
  }

  /** Takes the oldest idle connection off the books, for the caller to close; or {@code null}. */
  Conn removeOldestIdle() {
    lock.lock();
    try {
      Conn oldest = null;
      for (Conn c : conns) {
        if (c.inFlight == 0 && (oldest == null || c.idleSince - oldest.idleSince < 0)) {
          oldest = c;
        }
      }
      if (oldest != null) {
        remove(oldest);
      }
      return oldest;
    } finally {
      lock.unlock();
    }
  }

  /**
   * For the evictor: moves connections idle past {@code idleTimeoutNanos} to {@code expired} (off
   * the books, for closing) and returns the other idle ones with a slot taken, so that no call uses
   * one while the evictor validates it outside the lock.
   */
  List<Conn> reserveIdle(long now, long idleTimeoutNanos, List<Conn> expired) {
    List<Conn> idle = new ArrayList<>();
    lock.lock();
    try {
      for (Conn c : new ArrayList<>(conns)) {
        if (c.inFlight > 0) {
          continue;
        }
        if (idleTimeoutNanos > 0 && now - c.idleSince > idleTimeoutNanos) {
          remove(c);
          expired.add(c);
        } else {
          c.inFlight++;
          idle.add(c);
        }
      }
      return idle;
    } finally {
      lock.unlock();
    }
  }

  /** Takes every connection off the books, for closing. */
  List<Conn> removeAll() {
    lock.lock();
    try {
      List<Conn> all = new ArrayList<>(conns);
      for (Conn c : all) {
        remove(c);
      }
      released.signalAll();
      return all;
    } finally {
      lock.unlock();
    }
  }

  /** Whether a connection here owes the late reply of a timed-out call. */
  boolean owesLateReplies() {
    lock.lock();
    try {
      for (Conn c : conns) {
        if (c.channel.abandonedCalls() > 0) {
          return true;
        }
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Calls in flight here. */
  int active() {
    lock.lock();
    try {
      int n = 0;
      for (Conn c : conns) {
        n += c.inFlight;
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@link #active()} as the balancer sees it: a connection that owes the late reply of a timed-out
   * call counts as full, so that calls go where they can be answered without waiting.
   */
  int load() {
    lock.lock();
    try {
      int n = 0;
      for (Conn c : conns) {
        n += c.channel.abandonedCalls() > 0 ? Math.max(c.inFlight, maxInFlight) : c.inFlight;
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** Adds this endpoint's open, busy and waiting counts to {@code counts}. */
  void count(int[] counts) {
    lock.lock();
    try {
      for (Conn c : conns) {
        counts[0]++;
        if (c.inFlight > 0) {
          counts[1]++;
        }
      }
      counts[2] += waiting;
    } finally {
      lock.unlock();
    }
  }

  private boolean remove(Conn c) {
    if (c.removed) {
      return false;
    }
    c.removed = true;
    conns.remove(c);
    return true;
  }
}
