package io.thriftnio.testkit.leak;

import io.netty.util.ResourceLeakDetector;

/**
 * A Netty leak detector that, besides logging, records every leak it reports in {@link
 * LeakReports}, where {@link LeakCheckExtension} turns it into a test failure. Netty builds its
 * detectors through {@code ResourceLeakDetectorFactory}, which instantiates this class when the JVM
 * runs with {@code
 * -Dio.netty.customResourceLeakDetector=io.thriftnio.testkit.leak.FailingLeakDetector} (the
 * netty-transport and it modules set it for surefire).
 *
 * <p>Like Netty's own detector it reports a buffer only once it has been garbage collected without
 * being released, so it never reports a buffer that is merely still in use. Netty reports each
 * distinct allocation trace once per detector.
 *
 * @param <T> the tracked resource type
 */
public class FailingLeakDetector<T> extends ResourceLeakDetector<T> {

  /**
   * The constructor Netty's factory looks for first.
   *
   * @param resourceType the tracked type
   * @param samplingInterval how often a resource is tracked below PARANOID
   */
  public FailingLeakDetector(Class<?> resourceType, int samplingInterval) {
    super(resourceType, samplingInterval);
    LeakReports.installed(resourceType);
  }

  /**
   * The older constructor, which Netty's factory also accepts.
   *
   * @param resourceType the tracked type
   * @param samplingInterval how often a resource is tracked below PARANOID
   * @param maxActive ignored by Netty
   */
  @SuppressWarnings("deprecation")
  public FailingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
    super(resourceType, samplingInterval, maxActive);
    LeakReports.installed(resourceType);
  }

  @Override
  protected boolean needReport() {
    return true; // a leak must be recorded even when Netty's logger is below ERROR
  }

  @Override
  protected void reportTracedLeak(String resourceType, String records) {
    LeakReports.add(
        "LEAK: "
            + resourceType
            + ".release() was not called before it was garbage"
            + " collected."
            + records);
    super.reportTracedLeak(resourceType, records);
  }

  @Override
  protected void reportUntracedLeak(String resourceType) {
    LeakReports.add(
        "LEAK: "
            + resourceType
            + ".release() was not called before it was garbage"
            + " collected (no access records).");
    super.reportUntracedLeak(resourceType);
  }
}
