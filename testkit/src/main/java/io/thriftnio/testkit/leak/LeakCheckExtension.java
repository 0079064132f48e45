package io.thriftnio.testkit.leak;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when Netty's leak detector reports a leaked buffer: after each test it takes what
 * the detector has reported so far ({@link LeakReports#take()}), and after each test class it
 * collects garbage three times, lets the detector report what was collected unreleased ({@link
 * LeakReports#flushThoroughlyAndTake()}) and fails the class; either way with an {@link
 * AssertionError} carrying every leak record. Before the first test of a class it fails unless
 * {@link FailingLeakDetector} is installed at PARANOID level, so a changed build setup cannot
 * silently turn the check off.
 *
 * <p>Registered for every test of a module by {@code
 * META-INF/services/org.junit.jupiter.api.extension.Extension} and {@code
 * junit.jupiter.extensions.autodetection.enabled=true} in the module's test resources, together
 * with the surefire property {@code io.netty.customResourceLeakDetector}.
 *
 * <p>A leak is found when its buffer is garbage collected, which may be after the test that leaked
 * it has finished; the report then fails a later test or the class, and the allocation records it
 * carries point at the culprit. Every buffer a class leaked is unreachable by its end, so the
 * collections after the class find each one. The check collects after the class, not after each
 * test: a full collection costs tens of milliseconds or more, and the modules that register the
 * check run about 3,000 cases. To have each test collect, and so fail the very test that leaked,
 * set the system property {@value #EACH_TEST} to {@code true} in the test JVM (for example with
 * Surefire's {@code argLine}).
 */
public final class LeakCheckExtension
    implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

  /** System property: {@code true} collects garbage after each test, not only after the class. */
  public static final String EACH_TEST = "thriftnio.leakCheck.eachTest";

  private static final boolean COLLECT_EACH_TEST = Boolean.getBoolean(EACH_TEST);

  @Override
  public void beforeAll(ExtensionContext context) {
    if (!LeakReports.activeForBuffers()) {
      throw new AssertionError(
          "Netty's buffer leak detector is not "
              + FailingLeakDetector.class.getName()
              + " at PARANOID level: run with -Dio.netty.customResourceLeakDetector="
              + FailingLeakDetector.class.getName()
              + " -Dio.netty.leakDetection.level=paranoid");
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (COLLECT_EACH_TEST) {
      check(context.getDisplayName());
    } else {
      fail(LeakReports.take(), context.getDisplayName());
    }
  }

  /**
   * The thorough check: every buffer the class leaked is found here, with what its last test left
   * to the event loops.
   */
  @Override
  public void afterAll(ExtensionContext context) {
    fail(LeakReports.flushThoroughlyAndTake(), "the end of " + context.getDisplayName());
  }

  /**
   * Fails if Netty has reported a leak since the last check.
   *
   * @param where names the test, for the message
   * @throws AssertionError with every leak record
   */
  public static void check(String where) {
    fail(LeakReports.flushAndTake(), where);
  }

  private static void fail(List<String> leaks, String where) {
    if (!leaks.isEmpty()) {
      throw new AssertionError(
          leaks.size()
              + " leaked buffer(s) reported by Netty during or before "
              + where
              + ":\n"
              + String.join("\n\n", leaks));
    }
  }
}
