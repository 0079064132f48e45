package io.thriftnio.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The idle timeout and the frame timeout of one server connection, on one timer that is re-armed
 * for the nearest deadline. Confined to the connection's event loop.
 *
 * <ul>
 *   <li>Idle: no frame has arrived and no call has been answered for {@code idleTimeout}, and no
 *       call is in flight and no frame has started.
 *   <li>Frame: a frame started (bytes of it are buffered in the {@link ThriftFrameDecoder}) and is
 *       not complete {@code frameTimeout} after the last complete frame or its first byte.
 *   <li>Stalled reader: the connection has not been writable (responses above {@code
 *       maxPendingWriteBytes} wait for the peer) for {@code frameTimeout} in a row. A peer that
 *       sends requests and never reads their responses would otherwise hold the connection, and
 *       the responses, forever: the server stops reading from it, so no other clock runs.
 * </ul>
 *
 * While the connection is not read from (backpressure, drain), neither the idle nor the frame
 * clock runs against the peer.
 */
final class ConnectionTimeouts {

  /** What the timeouts need from the connection. */
  interface Connection {
    boolean hasCallsInFlight();

    boolean isClosing();

    /** Closes the connection for the reason given. */
    void timedOut(String why);
  }

  private final long idleTimeoutNanos;
  private final long frameTimeoutNanos;
  private ChannelHandlerContext ctx;
  private Connection connection;
  private ThriftFrameDecoder decoder;
  private long lastActivityNanos;
  private long partialSinceNanos = -1;
  private long unwritableSinceNanos = -1;
  private boolean frameDecodedInBatch;
  private ScheduledFuture<?> timer;
  private long timerDeadlineNanos;

  /**
   * @param idleTimeoutNanos 0 for none
   * @param frameTimeoutNanos 0 for none
   */
  ConnectionTimeouts(long idleTimeoutNanos, long frameTimeoutNanos) {
    this.idleTimeoutNanos = idleTimeoutNanos;
    this.frameTimeoutNanos = frameTimeoutNanos;
  }

  /** The connection became active. */
  void start(ChannelHandlerContext ctx, Connection connection) {
    this.ctx = ctx;
    this.connection = connection;
    this.decoder = ctx.pipeline().get(ThriftFrameDecoder.class);
    this.lastActivityNanos = System.nanoTime();
    arm();
  }

  /** A complete frame arrived. */
  void frameReceived() {
    frameDecodedInBatch = true;
    lastActivityNanos = System.nanoTime();
  }

  /** Every call received so far has been answered. */
  void allCallsAnswered() {
    lastActivityNanos = System.nanoTime();
  }

  /** A read batch ended: notes whether it left a frame unfinished. */
  void readBatchComplete() {
    if (frameTimeoutNanos <= 0 || decoder == null) {
      return;
    }
    if (!decoder.hasPartialFrame()) {
      partialSinceNanos = -1;
    } else if (partialSinceNanos < 0 || frameDecodedInBatch) {
      // Time a frame from the last completed one, so a peer streaming many frames in large
      // reads, each read ending inside a frame, is not taken for a slow sender.
      partialSinceNanos = System.nanoTime();
      arm();
    }
    frameDecodedInBatch = false;
  }

  /** The connection's writability changed (its pending responses crossed a water mark). */
  void writabilityChanged(boolean writable) {
    if (writable) {
      unwritableSinceNanos = -1;
    } else if (unwritableSinceNanos < 0 && frameTimeoutNanos > 0) {
      unwritableSinceNanos = System.nanoTime();
      arm();
    }
  }

  /** The connection closed. */
  void stop() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void arm() {
    long deadline = nextDeadline();
    if (deadline == Long.MAX_VALUE) {
      return;
    }
    if (timer != null) {
      if (deadline - timerDeadlineNanos >= 0) {
        return; // the pending check comes first and re-arms
      }
      timer.cancel(false);
    }
    timerDeadlineNanos = deadline;
    long delay = Math.max(0, deadline - System.nanoTime());
    timer = ctx.executor().schedule(this::check, delay, TimeUnit.NANOSECONDS);
  }

  private long nextDeadline() {
    long deadline = Long.MAX_VALUE;
    if (frameTimeoutNanos > 0 && partialSinceNanos >= 0) {
      deadline = partialSinceNanos + frameTimeoutNanos;
    }
    if (frameTimeoutNanos > 0 && unwritableSinceNanos >= 0) {
      long stalled = unwritableSinceNanos + frameTimeoutNanos;
      if (deadline == Long.MAX_VALUE || stalled - deadline < 0) {
        deadline = stalled;
      }
    }
    if (idleTimeoutNanos > 0) {
      long idle =
          isIdle() ? lastActivityNanos + idleTimeoutNanos : System.nanoTime() + idleTimeoutNanos;
      if (deadline == Long.MAX_VALUE || idle - deadline < 0) {
        deadline = idle;
      }
    }
    return deadline;
  }

  private boolean isIdle() {
    return !connection.hasCallsInFlight() && partialSinceNanos < 0;
  }

  private void check() {
    timer = null;
    if (!ctx.channel().isActive() || connection.isClosing()) {
      return;
    }
    long now = System.nanoTime();
    if (unwritableSinceNanos >= 0 && now - unwritableSinceNanos >= frameTimeoutNanos) {
      connection.timedOut(
          "its responses have waited unread for "
              + TimeUnit.NANOSECONDS.toMillis(now - unwritableSinceNanos)
              + " ms (frameTimeout "
              + TimeUnit.NANOSECONDS.toMillis(frameTimeoutNanos)
              + " ms, above maxPendingWriteBytes): stalled reader");
      return;
    }
    if (!ctx.channel().config().isAutoRead()) {
      // We are not reading (backpressure): the peer is not the slow one.
      lastActivityNanos = now;
      if (partialSinceNanos >= 0) {
        partialSinceNanos = now;
      }
    }
    if (frameTimeoutNanos > 0
        && partialSinceNanos >= 0
        && now - partialSinceNanos >= frameTimeoutNanos) {
      decoder.discardRest();
      connection.timedOut(
          "a frame started "
              + TimeUnit.NANOSECONDS.toMillis(now - partialSinceNanos)
              + " ms ago is not complete (frameTimeout "
              + TimeUnit.NANOSECONDS.toMillis(frameTimeoutNanos)
              + " ms): slow or stalled sender");
      return;
    }
    if (idleTimeoutNanos > 0 && isIdle() && now - lastActivityNanos >= idleTimeoutNanos) {
      connection.timedOut(
          "no request for "
              + TimeUnit.NANOSECONDS.toMillis(now - lastActivityNanos)
              + " ms (idleTimeout "
              + TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos)
              + " ms)");
      return;
    }
    arm();
  }
}
