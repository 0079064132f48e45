package io.thriftnio.pool;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shared connections of one endpoint in a {@link MultiplexedPool}: the one owner of their state
 * (which connections are open, the calls each carries, connects under way, borrowers waiting,
 * whether the endpoint left the source), under a lock private to this class. Calls to different
 * endpoints never contend, and nothing slow (connecting, closing, a user's validator) runs under
 * it; the caller closes what this class takes off its books.
 *
 * <p>A call takes the least loaded connection below {@code maxInFlight} among those that owe no
 * late reply of a timed-out call; when none has room it may reserve a connect; failing that it
 * takes one that owes a late reply; otherwise it waits for a release on this endpoint. A connection
 * past its age ({@link ConnectionAge}) takes no new call: it leaves the books when idle, or when
 * its last call is released. The evictor reserves idle connections to check them outside the lock
 * ({@link #reserveIdle}), and the pool reads loads and counts. {@link Conn}'s counters are guarded
 * by this lock too: only this class changes them.
 */
final class EndpointChannels {
  /** What a call got: a connection with a slot taken, or the right to open one. */
  record Grant(Conn conn, boolean fresh) {
    // conn null: the caller connects, a reservation held; fresh: the connection carried no call,
    // check it before use if asked.
  }

  final InetSocketAddress endpoint;
  private final int maxInFlight;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();

  // Changed under the lock only; copy-on-write so that look() can read the channels outside it.
  private final List<Conn> conns = new CopyOnWriteArrayList<>();

  @GuardedBy("lock")
  private int connecting;

  @GuardedBy("lock")
  private int waiting;

  /** The endpoint left the source. */
  @GuardedBy("lock")
  private boolean retired;

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
    look();
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
    look();
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
      if (!c.open()) {
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
      if (c.owing()) {
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
      // It has room for maxInFlight - 1 calls besides the one it carries: wake that many waiters.
      // One wake-up only would leave the others asleep for their whole borrow timeout beside free
      // slots, since a waiter that takes a slot does not pass the wake-up on.
      for (int i = Math.min(waiting, maxInFlight - 1); i > 0; i--) {
        released.signal();
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
    c.look();
    lock.lock();
    try {
      c.inFlight--;
      long now = System.nanoTime();
      if (c.calls() == 0) {
        c.idleSince = now; // its last call ended, though the evictor may be checking it
      }
      boolean aging = c.inFlight == 0 && c.over(now);
      boolean removed =
          (remove || !c.open() || ((retired || c.retiring) && c.inFlight == 0) || aging)
              && remove(c);
      if (removed && aging && !remove && c.open()) {
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

  /**
   * The evictor is done with a connection it reserved ({@link #reserveIdle}): gives the slot back
   * without restarting its idle clock, or takes it off the books ({@code remove}) for the caller to
   * close. Returns whether the caller must close it.
   */
  boolean endIdleCheck(Conn c, boolean remove) {
    c.look();
    lock.lock();
    try {
      c.inFlight--;
      c.checking--;
      boolean removed =
          (remove || !c.open() || ((retired || c.retiring) && c.inFlight == 0)) && remove(c);
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
    for (Conn c : conns) { // a snapshot, outside the lock: the channel's check may be user code
      if (c.channel.abandonedCalls() > 0) {
        return true;
      }
    }
    return false;
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
    look();
    lock.lock();
    try {
      int n = 0;
      for (Conn c : conns) {
        n += c.owing() ? Math.max(c.calls(), maxInFlight) : c.calls();
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

  /**
   * Reads what each connection's channel says of itself ({@link Conn#look()}) before a decision
   * under the lock: the channel may be a user's, whose checks must not run under a lock of ours.
   * What a decision then reads is a moment old; a channel that closes after it is found closed by
   * its next use, or leaves by its close callback.
   */
  private void look() {
    for (Conn c : conns) {
      c.look();
    }
  }

  /** Takes {@code c} off the books. */
  @GuardedBy("lock")
  private boolean remove(Conn c) {
    if (c.removed) {
      return false;
    }
    c.removed = true;
    conns.remove(c);
    return true;
  }
}
