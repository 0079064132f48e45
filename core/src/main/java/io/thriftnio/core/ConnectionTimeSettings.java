package io.thriftnio.core;

import java.time.Duration;

/**
 * The settings of {@link ServerBuilder} that bound how long one connection lives: the idle and
 * frame timeouts and the connection age. Its public setters are {@link ServerBuilder}'s (and are
 * documented there); it exists only to keep the builder a readable size. Not part of the API.
 *
 * @param <B> the concrete builder type, returned by every setter
 */
abstract class ConnectionTimeSettings<B extends ServerBuilder<B>> {

  Duration idleTimeout = Duration.ZERO;
  Duration frameTimeout = ServerBuilder.DEFAULT_FRAME_TIMEOUT;
  Duration maxConnectionAge; // null: never
  Duration maxConnectionAgeGrace; // null: never forced

  ConnectionTimeSettings() {}

  @SuppressWarnings("unchecked")
  final B self() {
    return (B) this;
  }

  /**
   * Closes a connection on which no complete frame arrived for this long, and no call is in flight.
   * Default: {@link Duration#ZERO}, off, because pooled clients keep idle connections.
   */
  public B idleTimeout(Duration idleTimeout) {
    this.idleTimeout = idleTimeout;
    return self();
  }

  /**
   * Closes a connection that started a frame and did not finish it within this time (a slow or
   * stalled sender), and one whose responses have waited above {@link
   * ServerBuilder#maxPendingWriteBytes(int)} for this long in a row (a stalled reader: a peer that
   * sends requests and never reads the responses, which the server stops reading from). Both are
   * counted in {@link ServerStats#timedOutConnections()}. Default: 30 seconds.
   */
  public B frameTimeout(Duration frameTimeout) {
    this.frameTimeout = frameTimeout;
    return self();
  }

  /**
   * How long a connection may live: once it is older than this (each connection's age varied by up
   * to 10% either way, so that connections opened together do not close together), the server
   * closes it once it is quiet: no call in flight, no request partly read, and nothing received or
   * answered for a second (or for the {@link #idleTimeout(Duration)}, if that is shorter). A call
   * in flight is never cut by the age alone, and neither is a client that calls more often than
   * once a second: only a {@link #maxConnectionAgeGrace(Duration)} closes that one. On an HTTP
   * connection the first reply written after the age says {@code Connection: close} and the server
   * closes once it is sent, which no client can misread. The close is {@link CloseCause#AGED} to
   * connection listeners and counted in {@link ServerStats#agedConnections()}. Clients then
   * reconnect, and balance anew across the servers they know: this is how long-lived connections of
   * stock clients spread to a server added later.
   *
   * <p>The race that stays is the one every idle timeout has: a request a client writes after a
   * second of silence, just as the server closes the connection, is lost with it (the server never
   * read it), and the client sees a transport error. This library's pools age their own connections
   * without that race ({@code PoolBuilder.maxConnectionAge}); prefer that for clients you control,
   * and this setting for stock clients, whose reconnect logic decides what such a call becomes.
   *
   * @param maxConnectionAge positive; {@code null} for never
   * @return this builder
   */
  public B maxConnectionAge(Duration maxConnectionAge) {
    this.maxConnectionAge = maxConnectionAge;
    return self();
  }

  /**
   * How long after its {@link #maxConnectionAge(Duration)} a connection that is not quiet (a call
   * in flight, or one answered less than a second ago) may stay open: at age plus grace it is
   * closed even with calls in flight, which then fail (their callers see the connection close;
   * their replies count in {@link ServerStats#droppedResponses()}), as gRPC's {@code
   * maxConnectionAgeGrace}. Only with a {@code maxConnectionAge} ({@link ServerBuilder#build()}
   * refuses it alone). Default: {@code null}, never forced, as gRPC's.
   *
   * @param maxConnectionAgeGrace {@code >= 0}; {@code null} for never
   * @return this builder
   */
  public B maxConnectionAgeGrace(Duration maxConnectionAgeGrace) {
    this.maxConnectionAgeGrace = maxConnectionAgeGrace;
    return self();
  }
}
