package io.thriftnio.testkit.leak;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when Netty's leak detector reports a leaked buffer during it: after each test it
 * collects garbage, lets the detector report what was collected unreleased ({@link
 * LeakReports#flushAndTake()}) and throws an {@link AssertionError} carrying every leak record.
 * Before the first test of a class it fails unless {@link FailingLeakDetector} is installed at
 * PARANOID level, so a changed build setup cannot silently turn the check off.
 *
 * <p>Registered for every test of a module by {@code
 * META-INF/services/org.junit.jupiter.api.extension.Extension} and {@code
 * junit.jupiter.extensions.autodetection.enabled=true} in the module's test resources, together
 * with the surefire property {@code io.netty.customResourceLeakDetector}.
 *
 * <p>A leak is found when its buffer is garbage collected, which may be after the test that leaked
 * it has finished; the report then fails the next test, and the allocation records it carries point
 * at the culprit. After each test one collection runs (a full collection costs tens of milliseconds
 * on a large test heap, and a module runs thousands of cases); after the class, three, so that what
 * its last test's event loops released late is found in that class.
 */
public final class LeakCheckExtension
    implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

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
    check(context.getDisplayName());
  }

  /** A last, thorough check: what the class's last test left to the event loops is found here. */
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
