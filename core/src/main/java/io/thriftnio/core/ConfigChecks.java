package io.thriftnio.core;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * The checks of {@link ServerConfig} across settings: a setting the chosen configuration would
 * ignore, a worker executor that would drop calls, the connection age and its grace. Not part of
 * the API.
 */
final class ConfigChecks {

  private ConfigChecks() {}

  /**
   * Refuses a setting the chosen configuration would ignore, so a mistake shows at build rather
   * than as a server that behaves as if it had not been made.
   */
  static void refuseIgnored(ServerBuilder<?> b, IoStrategy strategy, Set<WireKind> wireKinds) {
    if (b.httpPath != null && !wireKinds.contains(WireKind.HTTP)) {
      throw ignored("httpPath", "'" + b.httpPath + "'", "wireKinds " + wireKinds + " without HTTP");
    }
    if (b.healthPath != null && !wireKinds.contains(WireKind.HTTP)) {
      throw ignored(
          "healthPath", "'" + b.healthPath + "'", "wireKinds " + wireKinds + " without HTTP");
    }
    boolean sameThread = strategy == IoStrategy.SAME_THREAD;
    boolean leaderFollower = strategy == IoStrategy.LEADER_FOLLOWER;
    if (sameThread && b.workerExecutor != null) {
      throw ignored(
          "workerExecutor", b.workerExecutor, "ioStrategy SAME_THREAD, which runs no workers");
    }
    if ((sameThread || b.workerExecutor != null) && b.workerThreads != null) {
      throw ignored(
          "workerThreads",
          b.workerThreads,
          sameThread ? "ioStrategy SAME_THREAD, which runs no workers" : "a workerExecutor");
    }
    if ((sameThread || leaderFollower || b.workerExecutor != null)
        && b.workerQueueCapacity != null) {
      throw ignored(
          "workerQueueCapacity",
          b.workerQueueCapacity,
          b.workerExecutor != null
              ? "a workerExecutor"
              : "ioStrategy " + strategy + ", which queues no calls");
    }
    if ((sameThread || leaderFollower) && b.workerStartTimeout != null) {
      throw ignored(
          "workerStartTimeout",
          b.workerStartTimeout,
          "ioStrategy " + strategy + ", which queues no calls");
    }
  }

  /** The library behind {@code adaptiveLimit}, an optional dependency. */
  static final String ADAPTIVE_LIMIT_CLASS = "com.netflix.concurrency.limits.limit.Gradient2Limit";

  /**
   * {@code adaptiveLimit}: unset (0, off) or positive, with concurrency-limits on the class path.
   */
  static int checkAdaptiveLimit(Integer max) {
    if (max == null) {
      return 0;
    }
    Checks.positive("adaptiveLimit", max);
    try {
      Class.forName(ADAPTIVE_LIMIT_CLASS, false, ConfigChecks.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException(
          "adaptiveLimit: "
              + max
              + " needs com.netflix.concurrency-limits:concurrency-limits-core (0.5.4) on the class"
              + " path, an optional dependency of thrift-nio-core ("
              + ADAPTIVE_LIMIT_CLASS
              + " not found)",
          e);
    }
    return max;
  }

  /** {@code maxConnectionAge}: {@code null} (never) or positive. */
  static Duration checkMaxConnectionAge(Duration age) {
    return age == null ? null : Checks.positive("maxConnectionAge", age);
  }

  /**
   * {@code maxConnectionAgeGrace}: {@code null} (never forced) or {@code >= 0}, and only with a
   * {@code maxConnectionAge}, without which it would be ignored.
   */
  static Duration checkMaxConnectionAgeGrace(Duration grace, Duration age) {
    if (grace == null) {
      return null;
    }
    if (grace.isNegative()) {
      throw new SettingException("maxConnectionAgeGrace", grace, ">= 0");
    }
    if (age == null) {
      throw ignored("maxConnectionAgeGrace", grace, "maxConnectionAge unset (never aged)");
    }
    return grace;
  }

  private static SettingException ignored(String name, Object value, String because) {
    return new SettingException(name, value, "unset; ignored with " + because);
  }

  /**
   * Refuses an executor known to drop tasks silently: its call would never be answered in time and
   * every later reply on the connection would wait for it.
   */
  static Executor checkWorkerExecutor(Executor executor) {
    if (executor instanceof ThreadPoolExecutor) {
      RejectedExecutionHandler handler =
          ((ThreadPoolExecutor) executor).getRejectedExecutionHandler();
      if (handler instanceof ThreadPoolExecutor.DiscardPolicy
          || handler instanceof ThreadPoolExecutor.DiscardOldestPolicy) {
        throw new SettingException(
            "workerExecutor",
            executor + " with rejection handler " + handler.getClass().getName(),
            "a handler that runs or rejects every task, e.g. ThreadPoolExecutor.AbortPolicy; a"
                + " discarded call would never be answered");
      }
    }
    return executor;
  }
}
