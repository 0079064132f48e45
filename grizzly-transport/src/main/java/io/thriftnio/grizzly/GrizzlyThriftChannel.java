package io.thriftnio.grizzly;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.TooManyPendingCallsException;
import io.thriftnio.grizzly.internal.CloseListeners;
import io.thriftnio.grizzly.internal.GrizzlyWrites;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pipelined asynchronous {@link ThriftChannel} over one Grizzly connection.
 *
 * <pre>
 *  exchange(a) exchange(b) send(c) exchange(d)      any threads, no waiting
 *     | a | b | c | d |  -------&gt;  server
 *     | A | B | D |      &lt;-------  responses in request order (c is oneway: none)
 *  futures of a, b, d complete with A, B, D (first in, first out)
 * </pre>
 *
 * <p>Requests are written in the order the calls were made and their futures queued in that same
 * order, under one lock; the server answers in order, so each response completes the oldest
 * pending call. A oneway {@link #send(ByteBuffer)} takes no place in the queue and completes once
 * written.
 *
 * <p>Failures: a call that outlives its timeout fails with {@code TTransportException(TIMED_OUT)}
 * and closes the channel, because its late response would otherwise be matched to the next call.
 * The channel is marked closed and its queue emptied in one step before any future fails, so a
 * frame that arrives afterwards is dropped, and a call made from a failure callback fails at once.
 * When the connection closes, for any reason, every pending call fails with a {@code
 * TTransportException} naming the peer and the number of calls pending. A response with no call
 * waiting for it closes the channel. At most {@link GrizzlyClientResources#maxPendingCalls()}
 * calls wait for responses: one more fails at once with a {@link TooManyPendingCallsException},
 * and the channel stays usable. Failures always complete the returned future; {@code
 * exchange} and {@code send} never throw.
 *
 * <p>Futures complete on the executor chosen at {@linkplain GrizzlyClientResources#openChannel
 * creation}. Thread-safe; {@link #close()} is idempotent. Works with {@link
 * io.thriftnio.core.AsyncClients}.
 */
public final class GrizzlyThriftChannel implements ThriftChannel, ThriftClientFilter.FrameSink {

  private static final Logger log = LoggerFactory.getLogger(GrizzlyThriftChannel.class);

  private final GrizzlyClientResources resources;
  private final Connection<?> connection;
  private final SocketAddress peer;
  private final Duration defaultTimeout;
  private final Executor executor;
  private final int maxFrameSize;
  private final int maxPendingCalls;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private boolean closed;
  private String closeReason;

  GrizzlyThriftChannel(
      GrizzlyClientResources resources,
      Connection<?> connection,
      Duration defaultTimeout,
      Executor executor) {
    this.resources = resources;
    this.connection = connection;
    this.peer = ThriftFrameFilter.peerOf(connection);
    this.defaultTimeout = defaultTimeout;
    this.executor = executor;
    this.maxFrameSize = resources.maxFrameSize();
    this.maxPendingCalls = resources.maxPendingCalls();
    ThriftClientFilter.register(connection, this);
    CloseListeners.onClose(connection, () -> onClosed(null));
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, defaultTimeout);
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)"));
    }
    Buffer frame;
    try {
      frame = frame(request);
    } catch (FrameSizeException e) {
      return CompletableFuture.failedFuture(e);
    }
    Pending call = new Pending();
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(closedException(0));
      }
      if (pending.size() >= maxPendingCalls) {
        return CompletableFuture.failedFuture(
            new TooManyPendingCallsException(pending.size(), maxPendingCalls, peer));
      }
      // Armed before the call is queued, under the lock: a response can only find the call with
      // its timer already set, so completion always cancels it (no task outlives a fast reply).
      try {
        call.timeout =
            resources
                .timer()
                .schedule(
                    () -> onTimeout(call, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        return CompletableFuture.failedFuture(
            new TTransportException(
                TTransportException.NOT_OPEN,
                "call to " + peer + " not sent: the client timer is shut down (resources closed?)",
                e));
      }
      pending.add(call);
      GrizzlyWrites.write(
          connection,
          frame,
          failure -> {
            if (failure != null) {
              close("a write failed: " + failure);
            }
          });
    }
    return call.result;
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    Buffer frame;
    try {
      frame = frame(request);
    } catch (FrameSizeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> written = new CompletableFuture<>();
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(closedException(0));
      }
      GrizzlyWrites.write(
          connection,
          frame,
          failure -> {
            if (failure == null) {
              completeOn(() -> written.complete(null));
              return;
            }
            TTransportException e =
                new TTransportException(
                    TTransportException.NOT_OPEN,
                    "oneway send to " + peer + " failed: " + failure,
                    failure);
            completeOn(() -> written.completeExceptionally(e));
            close("a write failed: " + failure);
          });
    }
    return written;
  }

  private Buffer frame(ByteBuffer request) throws FrameSizeException {
    int length = request.remaining();
    if (length <= 0 || length > maxFrameSize) {
      throw new FrameSizeException(length, maxFrameSize, peer);
    }
    MemoryManager<?> mm = connection.getMemoryManager();
    byte[] header = new byte[Framing.HEADER_SIZE];
    Framing.encodeLength(length, header, 0);
    // Zero-copy: the prefix and the caller's buffer go out as one composite write.
    return Buffers.appendBuffers(mm, Buffers.wrap(mm, header), Buffers.wrap(mm, request.slice()));
  }

  @Override
  public void onFrame(ByteBuffer payload) {
    Pending call;
    List<Pending> failed = null;
    synchronized (this) {
      if (closed) {
        // The channel closed (a timeout, say) while this frame was in flight: it answers a call
        // that has already failed, so dropping it is the only safe choice.
        return;
      }
      call = pending.poll();
      if (call == null) {
        failed = markClosed("a response arrived with no call pending");
      }
    }
    if (call == null) {
      log.warn("Response from {} with no call pending; closing the channel", peer);
      closeAndFail(failed);
      return;
    }
    call.cancelTimer();
    completeOn(() -> call.result.complete(payload));
  }

  @Override
  public void onClosed(Throwable cause) {
    close(cause == null ? "the connection closed" : "the connection failed: " + cause);
  }

  private void onTimeout(Pending call, Duration timeout) {
    String reason = "a call timed out after " + timeout.toMillis() + " ms";
    int wasPending;
    List<Pending> others;
    synchronized (this) {
      wasPending = pending.size();
      if (closed || !pending.remove(call)) {
        return; // answered, or failed by a close, before the timer fired
      }
      // One step: no late response can be matched to the next call, and no retry made from the
      // failure callback below can join the queue of a channel that is about to close.
      others = markClosed(reason);
    }
    connection.closeSilently();
    TTransportException e =
        new TTransportException(
            TTransportException.TIMED_OUT,
            "no response from "
                + peer
                + " within "
                + timeout.toMillis()
                + " ms; channel closed ("
                + wasPending
                + " calls were pending)");
    completeOn(() -> call.result.completeExceptionally(e));
    fail(others);
  }

  private void completeOn(Runnable completion) {
    try {
      executor.execute(completion);
    } catch (RejectedExecutionException e) {
      completion.run(); // a shut-down executor must not leave a caller waiting forever
    }
  }

  @Override
  public synchronized int pendingCalls() {
    return pending.size();
  }

  @Override
  public boolean isOpen() {
    synchronized (this) {
      if (closed) {
        return false;
      }
    }
    return connection.isOpen();
  }

  @Override
  public SocketAddress remoteAddress() {
    return peer;
  }

  /** Closes the connection; pending calls fail. Idempotent. */
  @Override
  public void close() {
    close("the channel was closed by the caller");
  }

  private void close(String reason) {
    List<Pending> failed;
    synchronized (this) {
      failed = markClosed(reason);
    }
    closeAndFail(failed);
  }

  /**
   * Marks the channel closed and takes every pending call out of the queue; the caller holds the
   * lock. Returns {@code null} if it was closed already.
   */
  private List<Pending> markClosed(String reason) {
    if (closed) {
      return null;
    }
    closed = true;
    closeReason = reason;
    List<Pending> taken = new ArrayList<>(pending);
    pending.clear();
    return taken;
  }

  /** Closes the connection, then fails {@code calls} (from {@link #markClosed}); null: no-op. */
  private void closeAndFail(List<Pending> calls) {
    if (calls == null) {
      return;
    }
    connection.closeSilently();
    fail(calls);
  }

  private void fail(List<Pending> calls) {
    if (calls.isEmpty()) {
      return;
    }
    TTransportException e = closedException(calls.size());
    for (Pending call : calls) {
      call.cancelTimer();
      completeOn(() -> call.result.completeExceptionally(e));
    }
  }

  private TTransportException closedException(int pendingCount) {
    String reason;
    synchronized (this) {
      reason = closeReason;
    }
    return new TTransportException(
        TTransportException.END_OF_FILE,
        "channel to "
            + peer
            + " closed ("
            + reason
            + ") with "
            + pendingCount
            + " calls pending");
  }

  @Override
  public String toString() {
    return "GrizzlyThriftChannel{" + peer + ", pending=" + pendingCalls() + '}';
  }

  private static final class Pending {
    final CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    ScheduledFuture<?> timeout; // set under the channel's lock before the call is queued

    void cancelTimer() {
      timeout.cancel(false);
    }
  }
}
