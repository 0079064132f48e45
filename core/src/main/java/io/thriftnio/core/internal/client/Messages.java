package io.thriftnio.core.internal.client;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;

/** The messages of a {@link PipelinedCalls} table, calls and oneways, and their completion. */
final class Messages {
  private Messages() {}

  /** The frame-size failure of a request, or {@code null}: such a request fails alone. */
  static FrameSizeException checkSize(ByteBuffer request, int maxFrameSize, SocketAddress peer) {
    try {
      Framing.checkLength(request.remaining(), maxFrameSize, peer);
      return null;
    } catch (FrameSizeException e) {
      return e; // the request fails alone, before anything is written; the channel stays usable
    }
  }

  /** Completes {@code future} on {@code executor}, or here if the executor refuses the task. */
  static <T> void complete(
      Executor executor, CompletableFuture<T> future, T value, Throwable failure) {
    Runnable task =
        failure == null
            ? () -> future.complete(value)
            : () -> future.completeExceptionally(failure);
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      task.run(); // a caller's executor that is shut down must not leave the future hanging
    }
  }

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
