package io.thriftnio.testkit.leak;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leaks {@link FailingLeakDetector} has reported in this JVM and not yet taken. Shared by every
 * thread: a leak found on an event loop thread is seen by the test that checks next.
 */
public final class LeakReports {

  /** Bound on the wait for the reference handler after a collection; it usually takes < 1 ms. */
  private static final long REFERENCE_HANDLER_WAIT_MILLIS = 1_000;

  private static final List<String> reports = new ArrayList<>();
  private static final Set<String> trackedTypes = ConcurrentHashMap.newKeySet();

  private LeakReports() {}

  static void installed(Class<?> resourceType) {
    trackedTypes.add(resourceType.getName());
  }

  static synchronized void add(String report) {
    reports.add(report);
  }

  /**
   * Whether Netty's buffer leak detector is a {@link FailingLeakDetector} running at PARANOID
   * level. Loads Netty's buffer classes, so that their detector exists.
   */
  public static boolean activeForBuffers() {
    UnpooledByteBufAllocator.DEFAULT.directBuffer(1).release(); // tracked: heap ones are not
    return trackedTypes.contains(ByteBuf.class.getName())
        && ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID;
  }

  /**
   * Makes the detector report every leaked buffer that is already unreachable, then takes the
   * reports: runs the garbage collector once, waits until the JVM's reference handler has queued
   * what that collection found (a sentinel reference of its own comes out of its queue), and
   * allocates a buffer (Netty drains its queue of collected buffers on allocation). One full
   * collection finds every buffer unreachable at that point; a buffer an event loop releases or
   * drops a moment later is found by the next call, or by {@link #flushThoroughlyAndTake()} at the
   * end of the test class.
   *
   * @return the leak reports since the last call, each with its access records; empty if none
   */
  public static List<String> flushAndTake() {
    collectAndDrain();
    return take();
  }

  /**
   * As {@link #flushAndTake()}, three rounds, for the end of a test class: what the event loops of
   * its last test still held when that test's check ran is found here, not in another class.
   *
   * @return the leak reports since the last call, each with its access records; empty if none
   */
  public static List<String> flushThoroughlyAndTake() {
    for (int i = 0; i < 3; i++) {
      collectAndDrain();
    }
    return take();
  }

  private static void collectAndDrain() {
    ReferenceQueue<Object> queue = new ReferenceQueue<>();
    WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
    System.gc();
    try {
      // Once cleared, the sentinel is queued by the reference handler with the rest of what this
      // collection found. Not cleared: the JVM ignored the request (-XX:+DisableExplicitGC), and
      // waiting would find nothing more.
      if (sentinel.refersTo(null)) {
        queue.remove(REFERENCE_HANDLER_WAIT_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Reference.reachabilityFence(sentinel);
    UnpooledByteBufAllocator.DEFAULT.directBuffer(1).release(); // tracked: heap ones are not
  }

  /** Takes the reports recorded so far, without collecting garbage first. */
  public static synchronized List<String> take() {
    List<String> taken = new ArrayList<>(reports);
    reports.clear();
    return taken;
  }
}
