package io.thriftnio.core.internal;

import io.thriftnio.core.ServerStats;
import java.util.concurrent.atomic.LongAdder;

/** Live counters behind {@link ServerStats}; shared by the transports. Not part of the API. */
public final class ServerCounters {
  public final LongAdder acceptedConnections = new LongAdder();
  public final LongAdder rejectedConnections = new LongAdder();
  public final LongAdder openConnections = new LongAdder();
  public final LongAdder badFrames = new LongAdder();
  public final LongAdder timedOutConnections = new LongAdder();
  public final LongAdder completedCalls = new LongAdder();
  public final LongAdder failedCalls = new LongAdder();
  public final LongAdder overloadedCalls = new LongAdder();
  public final LongAdder truncatedFrames = new LongAdder();
  public final LongAdder droppedResponses = new LongAdder();
  public final LongAdder tlsFailures = new LongAdder();
  public final LongAdder timedOutCalls = new LongAdder();
  public final LongAdder agedConnections = new LongAdder();
  public final LongAdder saslFailures = new LongAdder();

  public ServerStats snapshot() {
    return new ServerStats(
        acceptedConnections.sum(),
        rejectedConnections.sum(),
        openConnections.sum(),
        badFrames.sum(),
        timedOutConnections.sum(),
        completedCalls.sum(),
        failedCalls.sum(),
        overloadedCalls.sum(),
        truncatedFrames.sum(),
        droppedResponses.sum(),
        tlsFailures.sum(),
        timedOutCalls.sum(),
        agedConnections.sum(),
        saslFailures.sum());
  }
}
