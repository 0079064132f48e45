package io.thriftnio.testkit;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * A server and client interceptor that notes, in every hook (and in the scopes it attaches and
 * resumes), the library locks the thread holds ({@link HeldLocks}): a suite installs it next to its
 * own interceptors and checks at the end that {@link #held()} is empty (issue 38: no user code runs
 * under a library lock).
 */
public final class LockCheckingInterceptor implements ServerInterceptor, ClientInterceptor {
  private final List<String> held = new CopyOnWriteArrayList<>();

  private void note(String hook) {
    for (String lock : HeldLocks.ofLibrary()) {
      held.add(hook + ": " + lock);
    }
  }

  /** Every library lock seen held, each with the hook it was held in; empty if none. */
  public List<String> held() {
    return held;
  }

  @Override
  public void beforeCall(ServerCallContext context) {
    note("server beforeCall");
  }

  @Override
  public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
    note("server afterCall");
  }

  @Override
  public Runnable attach(ServerCallContext context) {
    note("server attach");
    return () -> note("server scope close");
  }

  @Override
  public void beforeCall(ClientCallContext context) {
    note("client beforeCall");
  }

  @Override
  public void afterCall(
      ClientCallContext context, CallOutcome outcome, Throwable failure, long nanos) {
    note("client afterCall");
  }

  @Override
  public Runnable attach(ClientCallContext context) {
    note("client attach");
    return () -> note("client scope close");
  }

  @Override
  public Supplier<Runnable> capture() {
    note("client capture");
    return () -> {
      note("client resume");
      return () -> note("client resumed scope close");
    };
  }
}
