package io.thriftnio.it.bench;

import java.util.List;

/**
 * What the {@code overload} command measured of one server row under one handler: its capacity,
 * then each offered level.
 *
 * @param row the server row, with its server options ({@code netty/worker?workerQueueCapacity=64})
 * @param handler the handler, as {@code serve --handler} reads it
 * @param wire what the clients spoke ({@code header} carries the deadline as {@code
 *     client_timeout}; {@code framed} in the payload alone)
 * @param deadlineUs the callers' deadline, microseconds
 * @param capacity answered calls/s at saturation (closed loop), the 1x of the levels
 * @param levels the offered levels, in order
 * @param skipped why the row did not run, or {@code null}
 * @param otherLoad the largest share of a window that other processes ran on the server's CPU,
 *     0..1, or -1 when not pinned
 */
record OverloadResult(
    String row,
    String handler,
    String wire,
    long deadlineUs,
    double capacity,
    List<Level> levels,
    String skipped,
    double otherLoad) {

  /**
   * One offered level.
   *
   * @param factor the level as a multiple of the capacity
   * @param target the scheduled rate, calls/s
   * @param sentPerSecond calls the generator sent per second in the window: below the target when
   *     the generator, not the server, fell behind
   * @param sendLagP99Us how late the generator sent a call after its due time, 99th percentile, us
   * @param sendLagMaxUs the same, the largest
   * @param goodput calls answered within their deadline, per second of the window
   * @param sent calls sent in the window
   * @param inTime of them, answered within the deadline
   * @param lateReplies answered, but after the deadline (the client had not yet given up)
   * @param p50Us median latency of the answered calls, from each call's due time, us; -1 when none
   *     was answered
   * @param p99Us 99th percentile, likewise
   * @param notRun answered "not run" ({@link io.thriftnio.core.NotRun}): refused, handler not run
   * @param shedAtDeadline answered that the caller's deadline passed before the handler would start
   * @param timedOut given up at the deadline by the client
   * @param otherErrors any other failure, and calls still without an outcome after the drain
   * @param handlerRuns the handler's runs from the window's start until the server was idle after
   *     it, -1 if unknown
   * @param lateRuns of them, runs that started after the call's deadline, -1 if unknown
   */
  record Level(
      double factor,
      double target,
      double sentPerSecond,
      long sendLagP99Us,
      long sendLagMaxUs,
      double goodput,
      long sent,
      long inTime,
      long lateReplies,
      long p50Us,
      long p99Us,
      long notRun,
      long shedAtDeadline,
      long timedOut,
      long otherErrors,
      long handlerRuns,
      long lateRuns) {

    Level withHandler(long runs, long late) {
      return new Level(
          factor,
          target,
          sentPerSecond,
          sendLagP99Us,
          sendLagMaxUs,
          goodput,
          sent,
          inTime,
          lateReplies,
          p50Us,
          p99Us,
          notRun,
          shedAtDeadline,
          timedOut,
          otherErrors,
          runs,
          late);
    }
  }

  boolean ran() {
    return skipped == null;
  }

  /** The level offered at {@code factor}, or {@code null}. */
  Level at(double factor) {
    for (Level l : levels) {
      if (Math.abs(l.factor() - factor) < 1e-9) {
        return l;
      }
    }
    return null;
  }
}
