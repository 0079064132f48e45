package io.thriftnio.netty;

import io.netty.handler.ssl.OpenSsl;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Whether a native transport or OpenSSL loads in this JVM, for the tests that run on one.
 *
 * <p>A test whose native code cannot load here is skipped with the cause Netty reports, printed on
 * the console as well as in the report. With {@code THRIFTNIO_REQUIRE_NATIVE=1} (or {@code
 * -Dthriftnio.requireNative=true}), as {@code .ci/run} sets, a missing epoll or OpenSSL fails the
 * test instead: on Linux x86_64 both must load. io_uring is never required, since the kernel may
 * refuse it (too old, {@code kernel.io_uring_disabled}, a seccomp filter); its skip always says
 * why.
 */
final class NativeSupport {

  private NativeSupport() {}

  /** Skips the calling test (or class, from {@code @BeforeAll}) unless {@code type} loads here. */
  static void assumeTransport(NettyTransportType type) {
    switch (type) {
      case EPOLL:
        if (!io.netty.channel.epoll.Epoll.isAvailable()) {
          skipOrFail(
              "epoll is not available: " + io.netty.channel.epoll.Epoll.unavailabilityCause(),
              required());
        }
        return;
      case IO_URING:
        // Through the library, which configures Netty's io_uring before it first loads.
        String why = IoTransport.ioUringUnavailability();
        if (why != null) {
          skipOrFail("io_uring is not available: " + why, false);
        }
        return;
      default:
        return; // NIO and AUTO always run
    }
  }

  /** Skips the calling test unless netty-tcnative's OpenSSL (BoringSSL) loads here. */
  static void assumeOpenSsl() {
    if (!OpenSsl.isAvailable()) {
      skipOrFail("OpenSSL is not available: " + OpenSsl.unavailabilityCause(), required());
    }
  }

  /**
   * Leaves out, with its reason, the adversarial case that makes 120,000 calls on one connection,
   * on the cells of {@link NettyAdversarialTest} that are not on NIO. Under the build's PARANOID
   * leak detector, the native transports' writev path records several stack traces per response:
   * the case took 40 to 60 s there against 11 to 14 s on NIO with 10^6 calls (profiled: {@code
   * ResourceLeakDetector} records and unpooled buffer frees at the top). What it checks, that no
   * size limit applies to a connection, lives in core and runs on NIO.
   */
  static final class ManyCallsOnNioOnly implements ExecutionCondition {
    static final String CASE =
        "overAHundredMegabytesOfPipelinedCallsOnOneConnectionTripNoSizeLimit";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      boolean millionCalls =
          context.getTestMethod().map(m -> m.getName().equals(CASE)).orElse(false);
      // The cell is known once the instance exists, as it does for a method-level condition.
      String io =
          context
              .getTestInstance()
              .filter(NettyAdversarialTest.class::isInstance)
              .map(t -> ((NettyAdversarialTest) t).cell().io())
              .orElse("nio");
      return millionCalls && !io.equals("nio")
          ? ConditionEvaluationResult.disabled(
              CASE
                  + " runs on NIO only: on "
                  + io
                  + " it measures the PARANOID leak detector for 40-60 s, and its limit lives in"
                  + " core")
          : ConditionEvaluationResult.enabled("not the million-call case on a native transport");
    }
  }

  private static void skipOrFail(String reason, boolean required) {
    if (required) {
      Assertions.fail(
          reason + " (required by THRIFTNIO_REQUIRE_NATIVE=1 or thriftnio.requireNative=true)");
    }
    // Surefire prints no reason for a skipped class; the console line is what a reader sees.
    System.err.println("SKIPPED: " + reason);
    Assumptions.abort(reason);
  }

  private static boolean required() {
    String env = System.getenv("THRIFTNIO_REQUIRE_NATIVE");
    return Boolean.getBoolean("thriftnio.requireNative")
        || "1".equals(env)
        || "true".equalsIgnoreCase(env);
  }
}
