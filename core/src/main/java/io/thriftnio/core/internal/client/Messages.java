package io.thriftnio.core.internal.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;

/** The messages of a {@link PipelinedCalls} table: calls awaiting responses and oneways. */
final class Messages {
  private Messages() {}

  /** A message accepted and not yet handed to the link. */
  abstract static class Outbound {
    final ByteBuffer payload;
    final Executor completeOn;

    Outbound(ByteBuffer payload, Executor completeOn) {
      this.payload = payload;
      this.completeOn = completeOn;
    }
  }

  static final class Call extends Outbound {
    final CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    final Duration timeout;
    ScheduledFuture<?> timer; // set under the lock before the call is queued
    boolean written; // under the lock

    Call(ByteBuffer payload, Duration timeout, Executor completeOn) {
      super(payload, completeOn);
      this.timeout = timeout;
    }
  }

  static final class Oneway extends Outbound {
    final CompletableFuture<Void> result = new CompletableFuture<>();

    Oneway(ByteBuffer payload, Executor completeOn) {
      super(payload, completeOn);
    }
  }
}
