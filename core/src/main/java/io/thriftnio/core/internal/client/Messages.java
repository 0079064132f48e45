package io.thriftnio.core.internal.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/** The messages of a {@link PipelinedCalls} table: calls awaiting responses and oneways. */
final class Messages {
  private Messages() {}

  /** A message accepted and not yet handed to the link. */
  abstract static class Outbound {
    final ByteBuffer payload;

    Outbound(ByteBuffer payload) {
      this.payload = payload;
    }
  }

  static final class Call extends Outbound {
    final CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    final Duration timeout;
    ScheduledFuture<?> timer; // set under the lock before the call is queued
    boolean written; // under the lock

    Call(ByteBuffer payload, Duration timeout) {
      super(payload);
      this.timeout = timeout;
    }
  }

  static final class Oneway extends Outbound {
    final CompletableFuture<Void> result = new CompletableFuture<>();

    Oneway(ByteBuffer payload) {
      super(payload);
    }
  }
}
