package io.thriftnio.core;

/**
 * Where a server runs the Thrift processor for a request frame. The same names apply on every
 * transport; a transport that cannot honour one rejects it when its server is built.
 */
public enum IoStrategy {
  /**
   * The IO thread that read the frame runs the processor. Lowest latency and fewest threads; pick
   * it for fast handlers that never block, because a blocked handler stalls every connection on
   * that IO thread.
   */
  SAME_THREAD,

  /**
   * A worker executor runs the processor (a bounded pool by default, or any {@link
   * java.util.concurrent.Executor}, including virtual threads on Java 21+). Pick it for handlers
   * that block: database calls, sleeps, downstream RPCs.
   */
  WORKER,

  /**
   * Grizzly's leader-follower strategy: the thread that sees readiness hands the selector to a
   * follower and processes the event itself. Pick it for many connections with mixed handler cost.
   * Only the Grizzly transport supports it.
   */
  LEADER_FOLLOWER
}
