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
    return ServerStats.builder()
        .acceptedConnections(acceptedConnections.sum())
        .rejectedConnections(rejectedConnections.sum())
        .openConnections(openConnections.sum())
        .badFrames(badFrames.sum())
        .timedOutConnections(timedOutConnections.sum())
        .completedCalls(completedCalls.sum())
        .failedCalls(failedCalls.sum())
        .overloadedCalls(overloadedCalls.sum())
        .truncatedFrames(truncatedFrames.sum())
        .droppedResponses(droppedResponses.sum())
        .tlsFailures(tlsFailures.sum())
        .timedOutCalls(timedOutCalls.sum())
        .agedConnections(agedConnections.sum())
        .saslFailures(saslFailures.sum())
        .build();
  }
}
