package io.thriftnio.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.thriftnio.core.internal.server.TimeoutPolicy;
import java.util.concurrent.TimeUnit;

/**
 * The clocks of one server connection and the one timer that checks them against core's {@link
 * TimeoutPolicy}, re-armed for the nearest deadline. Confined to the connection's event loop, so no
 * read can slip between a check and its close.
 *
 * <p>The frame clock runs from the last complete frame or the first byte of the incomplete one. The
 * TLS handshake timeout is {@code SslHandler}'s own. While the connection is not read from
 * (backpressure, drain), neither the idle nor the frame clock runs against the peer.
 *
 * <p>Age: the timer fires at the connection's age ({@code maxConnectionAge}, jittered); the
 * connection is then marked aged (an HTTP reply may close it cleanly) and, each time every call is
 * answered, checked again when its quiet period would end, so it closes once quiet (see {@link
 * TimeoutPolicy}), or at age plus the grace.
 */
final class ConnectionTimeouts {

  private static final long NONE = TimeoutPolicy.NONE;

  /** What the timeouts need from the connection. */
  interface Connection {
    int pendingCalls();

    boolean isClosing();

    /** The connection is past its age: see {@code CallSequencer.markAged}. */
    void aged();

    /** Closes the connection for the reason given. */
    void timedOut(TimeoutPolicy.Verdict verdict);
  }

  private final TimeoutPolicy policy;

  // Confined to the channel's event loop, like every handler's state.
  private ChannelHandlerContext ctx;
  private Connection connection;
  private ThriftFrameDecoder decoder;
  private long lastActivityNanos;
  private long partialSinceNanos = NONE;
  private long unwritableSinceNanos = NONE;
  private long agedAtNanos = NONE;
  private boolean markedAged;
  private boolean frameDecodedInBatch;
  private ScheduledFuture<?> timer;
  private long timerDeadlineNanos;

  ConnectionTimeouts(TimeoutPolicy policy) {
    this.policy = policy;
  }

  /** The connection became active. */
  void start(ChannelHandlerContext ctx, Connection connection) {
    if (!policy.isEnabled()) {
      return;
    }
    this.ctx = ctx;
    this.connection = connection;
    ThriftFrameDecoder own = ctx.pipeline().get(ThriftFrameDecoder.class);
    ThriftFrameCodec codec = own == null ? ctx.pipeline().get(ThriftFrameCodec.class) : null;
    this.decoder = codec != null ? codec.decoder() : own;
    this.lastActivityNanos = System.nanoTime();
    this.agedAtNanos = policy.ageDeadline(lastActivityNanos);
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
    if (markedAged) {
      arm(); // idle: checked when it has been quiet long enough, unless a request comes first
    }
  }

  /** A read batch ended: notes whether it left a frame unfinished. */
  void readBatchComplete() {
    if (ctx == null || decoder == null) {
      return;
    }
    if (decoder.partialSinceNanos() == 0) {
      partialSinceNanos = NONE;
    } else if (partialSinceNanos == NONE || frameDecodedInBatch) {
      // Time a frame from the last completed one, so a peer streaming many frames in large
      // reads, each read ending inside a frame, is not taken for a slow sender.
      partialSinceNanos = TimeoutPolicy.stamp(System.nanoTime());
      arm();
    }
    frameDecodedInBatch = false;
  }

  /** The connection's writability changed (its pending responses crossed a water mark). */
  void writabilityChanged(boolean writable) {
    if (ctx == null) {
      return;
    }
    if (writable) {
      unwritableSinceNanos = NONE;
    } else if (unwritableSinceNanos == NONE) {
      unwritableSinceNanos = TimeoutPolicy.stamp(System.nanoTime());
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
    long now = System.nanoTime();
    arm(now, policy.decide(now, clocks()).next());
  }

  /** Schedules the check for {@code deadline} unless one is due no later. */
  private void arm(long now, long deadline) {
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
    timer = ctx.executor().schedule(this::check, Math.max(0, deadline - now), TimeUnit.NANOSECONDS);
  }

  private void check() {
    timer = null;
    if (!ctx.channel().isActive() || connection.isClosing()) {
      return;
    }
    long now = System.nanoTime();
    boolean reading = ctx.channel().config().isAutoRead();
    if (!reading) {
      // We are not reading (backpressure): the peer is not the slow one.
      lastActivityNanos = now;
      if (partialSinceNanos != NONE) {
        partialSinceNanos = TimeoutPolicy.stamp(now);
      }
    }
    TimeoutPolicy.Decision decision = policy.decide(now, clocks());
    TimeoutPolicy.Verdict verdict = decision.verdict();
    if (verdict == null) {
      if (!markedAged && decision.aged()) {
        markedAged = true;
        connection.aged();
      }
      arm(now, decision.next());
      return;
    }
    if (verdict.kind() == TimeoutPolicy.Kind.PARTIAL_REQUEST) {
      decoder.discardRest();
    }
    connection.timedOut(verdict);
  }

  /** The clocks as they stand; the TLS handshake timeout is {@code SslHandler}'s. */
  private TimeoutPolicy.Clocks clocks() {
    return new TimeoutPolicy.Clocks(
        lastActivityNanos,
        partialSinceNanos,
        unwritableSinceNanos,
        connection.pendingCalls(),
        NONE,
        agedAtNanos);
  }
}
