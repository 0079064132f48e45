package io.thriftnio.core.wire;

import io.thriftnio.core.sasl.ServerSasl;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server's SASL settings as its connections' decoders use them: the {@link ServerSasl}, the
 * executor the mechanisms' steps run on, and a small memory of the peers whose failure was logged,
 * so that a client retrying a wrong password does not fill the log. One per server.
 *
 * <p>The steps run on one executor shared by every server of the JVM ({@link #SHARED_STEPS}), not
 * on a server's workers: a {@code SAME_THREAD} server has none, and a storm of negotiations (each a
 * few milliseconds of public-key or Kerberos work, a GSSAPI step perhaps blocking on a replay
 * cache) must not queue ahead of calls. Its threads are daemons that end after 30 s idle.
 */
public final class SaslSettings {

  /** Negotiation steps waiting for a thread before new ones are refused with {@code ERROR}. */
  static final int MAX_QUEUED_STEPS = 4096;

  /**
   * Runs every server's negotiation steps: at most max(2, cores) at once, {@value
   * #MAX_QUEUED_STEPS} waiting.
   */
  static final Executor SHARED_STEPS = newStepExecutor();

  private final ServerSasl sasl;
  private final Executor steps;
  private final PeerMemory loggedPeers = new PeerMemory();

  /** The settings of a server's {@code sasl}, its steps on the shared executor. */
  public SaslSettings(ServerSasl sasl) {
    this(sasl, SHARED_STEPS);
  }

  /**
   * @param sasl the server's
   * @param steps runs the mechanisms' steps (a test's own, say)
   */
  public SaslSettings(ServerSasl sasl, Executor steps) {
    this.sasl = Objects.requireNonNull(sasl, "sasl");
    this.steps = Objects.requireNonNull(steps, "steps");
  }

  /** The server's SASL settings. */
  public ServerSasl sasl() {
    return sasl;
  }

  /** Where the mechanisms' steps run. */
  public Executor steps() {
    return steps;
  }

  /**
   * Whether a failure of {@code peer} is the first among the recent ones from its address (the port
   * ignored): log it at WARN then, else at DEBUG.
   */
  public boolean firstFailureOf(Object peer) {
    return loggedPeers.first(peer);
  }

  private static Executor newStepExecutor() {
    AtomicInteger next = new AtomicInteger(1);
    int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(MAX_QUEUED_STEPS),
            task -> {
              Thread t = new Thread(task, "thrift-nio-sasl-" + next.getAndIncrement());
              t.setDaemon(true);
              return t;
            });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  @Override
  public String toString() {
    return sasl.toString();
  }
}
