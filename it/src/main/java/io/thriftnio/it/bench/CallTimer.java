package io.thriftnio.it.bench;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The smallest useful interceptor, for the rows that measure what one costs ({@code
 * netty-one-interceptor/...}): counts calls and adds up their time per outcome, as a metrics
 * binding would before it publishes.
 */
final class CallTimer implements ServerInterceptor {
  private final Map<CallOutcome, LongAdder> calls = new EnumMap<>(CallOutcome.class);
  private final Map<CallOutcome, LongAdder> nanos = new EnumMap<>(CallOutcome.class);

  CallTimer() {
    for (CallOutcome o : CallOutcome.values()) {
      calls.put(o, new LongAdder());
      nanos.put(o, new LongAdder());
    }
  }

  @Override
  public void afterCall(ServerCallContext context, CallOutcome outcome, long elapsedNanos) {
    calls.get(outcome).increment();
    nanos.get(outcome).add(elapsedNanos);
  }

  long calls(CallOutcome outcome) {
    return calls.get(outcome).sum();
  }
}
