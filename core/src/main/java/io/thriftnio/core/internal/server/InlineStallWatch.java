package io.thriftnio.core.internal.server;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the replies a read batch has written when a call run on the reading thread after them
 * (Grizzly's {@code LEADER_FOLLOWER}, whose handlers may block) takes longer than a short bound, so
 * that a fast call's reply does not wait for a slow call read after it; replies of calls that end
 * quickly still leave together at the end of their batch.
 *
 * <pre>
 *  reading thread:  call 1 | call 2 (reply 1 written, unflushed) .... sleeps ....... | call 3
 *  this watch:            tick: call 2 started?   tick: still call 2 -&gt; flush reply 1
 * </pre>
 *
 * <p>Flushing before every such call (as before) cost one write per pipelined call: a profile of
 * the efficiency bench's {@code async-8x32} on {@code grizzly/leader-follower} put two thirds of
 * the server's CPU in that write (issue 41). Now a connection joins the watch once per read batch,
 * when a call starts on the reading thread with replies waiting; while any connection is watched,
 * one check runs every {@code tick} on the call deadlines' timer thread. A connection whose reading
 * thread started no call between two checks and still has replies waiting is flushed (by {@link
 * CallSequencer#checkStalled}): a reply waits between one and two ticks at most for a call that
 * runs long. A connection with nothing waiting leaves the watch; the checks stop when none is left.
 * One watch per server; not part of the API.
 */
final class InlineStallWatch {

  private static final Logger log = LoggerFactory.getLogger(InlineStallWatch.class);

  private final long tickNanos;
  private final Set<CallSequencer> watched = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean ticking = new AtomicBoolean();
  private final Runnable tick = this::tick;

  /**
   * @param tick how often the watched connections are looked at: a reply waits for a call run after
   *     it on its reading thread between one and two ticks at most
   */
  InlineStallWatch(Duration tick) {
    this.tickNanos = CallDeadlines.nanos(tick);
  }

  /**
   * Watches {@code calls} until it leaves ({@link #leave}); called under its lock.
   *
   * @return whether the caller must {@link #start} the checks, outside the lock
   */
  boolean join(CallSequencer calls) {
    watched.add(calls);
    return ticking.compareAndSet(false, true);
  }

  /** Stops watching {@code calls}; called under its lock. */
  void leave(CallSequencer calls) {
    watched.remove(calls);
  }

  /** Schedules the next check; after {@link #join} returned {@code true}, and by the check. */
  void start() {
    CallDeadlines.schedule(tick, tickNanos);
  }

  private void tick() {
    for (CallSequencer calls : watched) {
      try {
        calls.checkStalled();
      } catch (RuntimeException | Error e) {
        watched.remove(calls); // a bug: its replies leave at the end of each batch from now on
        log.error(
            "Flushing the replies ahead of a long call failed on connection from {}",
            calls.connection.remoteAddress(),
            e);
      }
    }
    if (watched.isEmpty()) {
      ticking.set(false);
      // A connection that joined meanwhile either saw ticking false and starts the checks
      // itself, or is seen here.
      if (watched.isEmpty() || !ticking.compareAndSet(false, true)) {
        return;
      }
    }
    start();
  }
}
