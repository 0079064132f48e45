package io.thriftnio.it.bench;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The open connections of one cell, as lanes that the load engine drives. */
interface ClientLoad extends AutoCloseable {

  /** The lanes; each is driven by one thread (sync) or kept {@code depth} calls deep (async). */
  List<Lane> lanes();

  /** Connections opened so far, or -1 when the kind cannot tell. */
  default long connectionsOpened() {
    return -1;
  }

  /** Closes every connection; a call blocked on one fails. Idempotent. */
  @Override
  void close();

  /** A unit of load: one connection, or one caller of a shared pool. */
  interface Lane {
    /**
     * Whether the lane may go on after a failed call. A connection that failed mid-call may hold
     * half a response, so a plain connection's lane stops; a pool replaces the connection.
     */
    default boolean continuesAfterError() {
      return false;
    }
  }

  /** A lane whose calls block. */
  interface SyncLane extends Lane {
    /**
     * Makes one call and checks its result.
     *
     * @return whether the result was intact
     * @throws Exception if the call failed
     */
    boolean call() throws Exception;
  }

  /** A lane whose calls complete later; the engine keeps {@link #depth()} of them in flight. */
  interface AsyncLane extends Lane {
    /** Calls kept in flight on this lane. */
    int depth();

    /**
     * Starts one call.
     *
     * @return completes with whether the result was intact, or exceptionally if the call failed
     */
    CompletableFuture<Boolean> call();
  }
}
