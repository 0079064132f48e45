package io.thriftnio.it.bench;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.io.PrintStream;

/**
 * {@code serve --access-log}: one line per call, {@code PEER METHOD OUTCOME MICROS us}, from a
 * {@link ServerInterceptor}, so that a person can watch calls arrive.
 */
final class AccessLog implements ServerInterceptor {

  private final PrintStream out;

  AccessLog(PrintStream out) {
    this.out = out;
  }

  @Override
  public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
    out.println(
        context.remoteAddress()
            + " "
            + context.methodName()
            + " "
            + outcome
            + " "
            + nanos / 1000
            + " us");
  }
}
