package io.thriftnio.testkit.leak;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leaks {@link FailingLeakDetector} has reported in this JVM and not yet taken. Shared by every
 * thread: a leak found on an event loop thread is seen by the test that checks next.
 */
public final class LeakReports {

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
   * reports: runs the garbage collector and allocates a buffer (Netty drains its queue of collected
   * buffers on allocation), a few times, since references are queued after a collection by another
   * thread.
   *
   * @return the leak reports since the last call, each with its access records; empty if none
   */
  public static List<String> flushAndTake() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(10); // lets the reference handler thread queue what the collection found
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      UnpooledByteBufAllocator.DEFAULT.directBuffer(1).release(); // tracked: heap ones are not
    }
    return take();
  }

  /** Takes the reports recorded so far, without collecting garbage first. */
  public static synchronized List<String> take() {
    List<String> taken = new ArrayList<>(reports);
    reports.clear();
    return taken;
  }
}
