package io.thriftnio.testkit;

import io.thriftnio.core.CallKey;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link ClientInterceptor} that records what it sees: each {@code afterCall} as an {@link
 * Ended}, and both hooks as lines {@code "before NAME METHOD"} / {@code "after NAME METHOD
 * OUTCOME"} in a list that several recorders may share, so a test can assert their order. Its
 * {@code beforeCall} sets {@link #STARTED} to {@link System#nanoTime()}.
 */
public final class RecordingClientInterceptor implements ClientInterceptor {

  /** Set by {@code beforeCall}: when it ran. */
  public static final CallKey<Long> STARTED = CallKey.of("started");

  /** One {@code afterCall}. */
  public record Ended(
      ClientCallContext context, CallOutcome outcome, Throwable failure, long nanos) {}

  private final String name;
  private final List<String> events;
  private final List<Ended> ended = new CopyOnWriteArrayList<>();

  /** A recorder named {@code name} writing its lines into {@code events}. */
  public RecordingClientInterceptor(String name, List<String> events) {
    this.name = name;
    this.events = events;
  }

  /** A recorder named {@code "r"} with lines of its own. */
  public RecordingClientInterceptor() {
    this("r", new CopyOnWriteArrayList<>());
  }

  @Override
  public void beforeCall(ClientCallContext context) {
    events.add("before " + name + " " + context.methodName());
    context.setAttribute(STARTED, System.nanoTime());
  }

  @Override
  public void afterCall(
      ClientCallContext context, CallOutcome outcome, Throwable failure, long nanos) {
    events.add("after " + name + " " + context.methodName() + " " + outcome);
    ended.add(new Ended(context, outcome, failure, nanos));
  }

  /** Every {@code afterCall} so far, in order. */
  public List<Ended> ended() {
    return ended;
  }

  /** The outcomes so far, in order. */
  public List<CallOutcome> outcomes() {
    return ended.stream().map(Ended::outcome).toList();
  }

  /** The one {@code afterCall} so far; fails if there were more or none. */
  public Ended only() {
    if (ended.size() != 1) {
      throw new AssertionError("expected one call to have ended, got " + ended);
    }
    return ended.get(0);
  }

  /** An interceptor whose {@code afterCall} always throws {@code IllegalStateException}. */
  public static ClientInterceptor throwingAfterCall() {
    return new ClientInterceptor() {
      @Override
      public void afterCall(
          ClientCallContext context, CallOutcome outcome, Throwable failure, long nanos) {
        throw new IllegalStateException("afterCall bug, for the test");
      }
    };
  }
}
