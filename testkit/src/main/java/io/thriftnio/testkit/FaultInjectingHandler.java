package io.thriftnio.testkit;

import io.thriftnio.testkit.gen.BenchError;

/**
 * The reference handler, except that {@code fail(code, message)} with one of the codes below throws
 * an undeclared throwable instead of {@code BenchError}, so tests can check that servers answer
 * {@code TApplicationException(INTERNAL_ERROR)} and survive.
 */
public class FaultInjectingHandler extends BenchHandler {

  /** {@code fail(THROW_RUNTIME_EXCEPTION, m)} throws {@code IllegalStateException(m)}. */
  public static final int THROW_RUNTIME_EXCEPTION = 900;

  /** {@code fail(THROW_ERROR, m)} throws {@code AssertionError(m)}. */
  public static final int THROW_ERROR = 901;

  /** {@code fail(THROW_STACK_OVERFLOW, m)} overflows the stack. */
  public static final int THROW_STACK_OVERFLOW = 902;

  @Override
  public void fail(int code, String message) throws BenchError {
    switch (code) {
      case THROW_RUNTIME_EXCEPTION:
        throw new IllegalStateException(message);
      case THROW_ERROR:
        throw new AssertionError(message);
      case THROW_STACK_OVERFLOW:
        recurse(0);
        throw new AssertionError("unreachable");
      default:
        super.fail(code, message);
    }
  }

  private static int recurse(int depth) {
    return recurse(depth + 1) + 1;
  }
}
