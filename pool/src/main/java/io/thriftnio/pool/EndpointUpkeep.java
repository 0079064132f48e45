package io.thriftnio.pool;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The books of one endpoint's shared connections and their lock, with what the evictor and the
 * counters do with them: idle checks and expiry, room made for another endpoint, loads and counts.
 * {@link EndpointChannels} adds borrowing. Every field below is guarded by {@link #lock}, the one
 * lock of the endpoint; {@link Conn}'s counters are guarded by it too.
 */
class EndpointUpkeep {
  final InetSocketAddress endpoint;
  final int maxInFlight;
  final ReentrantLock lock = new ReentrantLock();
  final Condition released = lock.newCondition();

  @GuardedBy("lock")
  final List<Conn> conns = new ArrayList<>();

  @GuardedBy("lock")
  int connecting;

  @GuardedBy("lock")
  int waiting;

  /** The endpoint left the source. */
  @GuardedBy("lock")
  boolean retired;

  EndpointUpkeep(InetSocketAddress endpoint, int maxInFlight) {
    this.endpoint = endpoint;
    this.maxInFlight = maxInFlight;
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
      c.checking--;
      boolean removed =
          (remove || !c.channel.isOpen() || ((retired || c.retiring) && c.inFlight == 0))
              && remove(c);
      if (waiting > 0) {
        released.signal();
      }
      return removed;
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
          c.checking++; // no call: left out of the stats and the loads
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
        n += c.calls();
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
        n += c.channel.abandonedCalls() > 0 ? Math.max(c.calls(), maxInFlight) : c.calls();
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
        if (c.calls() > 0) {
          counts[1]++;
        }
      }
      counts[2] += waiting;
    } finally {
      lock.unlock();
    }
  }

  /** Takes {@code c} off the books. */
  @GuardedBy("lock")
  final boolean remove(Conn c) {
    if (c.removed) {
      return false;
    }
    c.removed = true;
    conns.remove(c);
    return true;
  }
}
