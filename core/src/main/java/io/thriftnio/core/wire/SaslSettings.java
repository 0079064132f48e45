package io.thriftnio.core.wire;

import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.util.internal.PeerMemory;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * A server's SASL settings as its connections' decoders use them: the {@link ServerSasl}, the
 * executor the mechanisms' steps run on, and a small memory of the peers whose failure was logged,
 * so that a client retrying a wrong password does not fill the log. One per server.
 *
 * <p>The steps run on the server's own negotiation executor ({@link
 * ServerSasl#negotiationExecutor()}, or the server's own pool), not on its workers: a {@code
 * SAME_THREAD} server has none, and a storm of negotiations (each a few milliseconds of public-key
 * or Kerberos work, a GSSAPI step perhaps blocking on a replay cache, an authenticator asking a
 * user store) must not queue ahead of calls, nor ahead of another server's negotiations.
 */
public final class SaslSettings {

  /**
   * Threads of a server's own negotiation pool: {@value}, or the cores when more. Steps are CPU
   * work (Kerberos, DIGEST-MD5) or a user store's answer (PLAIN, a callback handler).
   */
  public static final int MIN_STEP_THREADS = 4;

  /** Negotiation steps waiting for a thread of a server's own pool before new ones are refused. */
  public static final int MAX_QUEUED_STEPS = 4096;

  private final ServerSasl sasl;
  private final Executor steps;
  private final PeerMemory loggedPeers = new PeerMemory();

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
   * ignored): log it at its level then, else at DEBUG.
   */
  public boolean firstFailureOf(SocketAddress peer) {
    return loggedPeers.first(peer);
  }

  @Override
  public String toString() {
    return sasl.toString();
  }
}
