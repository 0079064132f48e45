package io.thriftnio.core.internal.client;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.TooManyPendingCallsException;
import io.thriftnio.core.internal.client.Messages.Call;
import io.thriftnio.core.internal.client.Messages.Oneway;
import io.thriftnio.core.internal.client.Messages.Outbound;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.thrift.transport.TTransportException;

/**
 * The call table of one pipelined client connection, the same on every transport: requests leave in
 * call order, responses complete the oldest waiting call (first in, first out), every call has its
 * own timer, and a close fails every waiting call at once with one message naming the peer and the
 * count. An IO adapter implements {@link Link} and reports what its connection reads and how it
 * ends; this class decides everything else.
 *
 * <pre>
 *  exchange(a) exchange(b) send(c) exchange(d)   callers: queue under a short lock, never write
 *      outbound [a][b][c][d]  --drain--&gt;  Link.write x4, Link.flush x1   (one drainer at a time)
 *      awaiting  a  b  d      &lt;--onResponse(A), (B), (D)   A completes a, B b, D d
 * </pre>
 *
 * <p>Bounds: calls awaiting responses plus oneway messages not yet written are at most {@code
 * maxPendingCalls}; one more fails at once with {@link TooManyPendingCallsException}, nothing is
 * sent and the channel stays usable. The drain stops while {@link Link#writable()} is false and
 * resumes on {@link #writable()}, so a slow socket holds the caller's messages here, counted, and
 * not in an unbounded IO-library queue.
 *
 * <p>No lock is held while a link writes or while a future completes: a busy connection never
 * stalls the IO thread of another. Futures complete on the callback executor.
 */
public final class PipelinedCalls {

  /** What the table needs from one connection; implemented by each IO adapter. */
  public interface Link {
    /** Runs the drain: on the connection's IO thread, or at once on the calling thread. */
    void execute(Runnable drain);

    /**
     * Writes one message; the adapter adds the length prefix. Called by one drainer at a time, in
     * call order. {@code done} gets {@code null} once written, or the failure.
     */
    void write(ByteBuffer payload, Consumer<Throwable> done);

    /**
     * As {@link #write(ByteBuffer, Consumer)}, saying whether the message is oneway: a link whose
     * wire answers oneway messages too (HTTP) must know which response to expect. By default the
     * two-argument write.
     */
    default void write(ByteBuffer payload, boolean oneway, Consumer<Throwable> done) {
      write(payload, done);
    }

    /** Sends what the writes since the last flush have queued. */
    void flush();

    /** Whether the connection takes more writes now without growing its buffer past its mark. */
    boolean writable();

    /** Closes the connection; it need not wait. */
    void closeConnection();
  }

  private final SocketAddress peer;
  private final int maxFrameSize;
  private final int maxPendingCalls;
  private final Duration defaultTimeout;
  private final ScheduledExecutorService timer;
  private final Executor callbackExecutor;
  private final Link link;
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Object lock = new Object();
  private final ArrayDeque<Call> awaiting = new ArrayDeque<>();
  private final ArrayDeque<Outbound> outbound = new ArrayDeque<>();
  private int unwrittenOneways;
  private boolean closed;
  private String closeReason;
  private Runnable onClose = () -> {};

  /**
   * @param peer the server, as the caller named it; every message names it
   * @param maxFrameSize the largest request sent, in bytes
   * @param maxPendingCalls calls awaiting responses plus oneways not yet written, at most
   * @param defaultTimeout the timeout of {@link #exchange(ByteBuffer)}
   * @param timer runs the per-call timers
   * @param callbackExecutor completes the futures
   * @param link the connection
   */
  public PipelinedCalls(
      SocketAddress peer,
      int maxFrameSize,
      int maxPendingCalls,
      Duration defaultTimeout,
      ScheduledExecutorService timer,
      Executor callbackExecutor,
      Link link) {
    this.peer = peer;
    this.maxFrameSize = maxFrameSize;
    this.maxPendingCalls = maxPendingCalls;
    this.defaultTimeout = defaultTimeout;
    this.timer = timer;
    this.callbackExecutor = callbackExecutor;
    this.link = link;
  }

  /**
   * Runs {@code action} once, after the table has closed (for a registry of open connections, a
   * pool): at once if it has. Actions added earlier run first.
   */
  public void onClose(Runnable action) {
    synchronized (lock) {
      if (!closed) {
        Runnable before = onClose;
        onClose =
            () -> {
              before.run();
              action.run();
            };
        return;
      }
    }
    action.run();
  }

  /** A call with the default timeout. */
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, defaultTimeout);
  }

  /** A call that fails with {@code TIMED_OUT}, and closes the connection, after {@code timeout}. */
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    return exchange(request, timeout, callbackExecutor);
  }

  /**
   * A call whose future completes on {@code completeOn}: {@code Runnable::run} completes it on the
   * IO (or timer) thread, for a caller that hops to its own executor next.
   */
  public CompletableFuture<ByteBuffer> exchange(
      ByteBuffer request, Duration timeout, Executor completeOn) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)"));
    }
    FrameSizeException tooLarge = Messages.checkSize(request, maxFrameSize, peer);
    if (tooLarge != null) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    Call call = new Call(request.duplicate(), timeout, completeOn);
    synchronized (lock) {
      TTransportException refused = refusal();
      if (refused != null) {
        return CompletableFuture.failedFuture(refused);
      }
      try {
        // Armed under the lock before the call is queued: a response always finds its timer set.
        call.timer = timer.schedule(() -> timeOut(call), timeout.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        return CompletableFuture.failedFuture(
            ClientErrors.channelClosed(peer, "its timer is shut down; resources closed?"));
      }
      awaiting.add(call);
      outbound.add(call);
    }
    requestDrain();
    return call.result;
  }

  /** A oneway message: completes once written; counts against the bound until then. */
  public CompletableFuture<Void> send(ByteBuffer request) {
    return send(request, callbackExecutor);
  }

  /** A oneway message whose future completes on {@code completeOn}. */
  public CompletableFuture<Void> send(ByteBuffer request, Executor completeOn) {
    FrameSizeException tooLarge = Messages.checkSize(request, maxFrameSize, peer);
    if (tooLarge != null) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    Oneway oneway = new Oneway(request.duplicate(), completeOn);
    synchronized (lock) {
      TTransportException refused = refusal();
      if (refused != null) {
        return CompletableFuture.failedFuture(refused);
      }
      unwrittenOneways++;
      outbound.add(oneway);
    }
    requestDrain();
    return oneway.result;
  }

  /** Calls awaiting responses plus oneway messages not yet written. */
  public int pendingCalls() {
    synchronized (lock) {
      return awaiting.size() + unwrittenOneways;
    }
  }

  /** Whether the table takes calls: not closed. */
  public boolean isOpen() {
    synchronized (lock) {
      return !closed;
    }
  }

  /** One response frame from the connection, in arrival order. */
  public void onResponse(ByteBuffer payload) {
    Call call;
    synchronized (lock) {
      if (closed) {
        return; // it answers a call that has already failed (a timeout closed the channel, say)
      }
      call = awaiting.peek();
      if (call == null || !call.written) {
        call = null;
      } else {
        awaiting.poll();
      }
    }
    if (call == null) {
      close("a response arrived with no call pending (is the peer a Thrift server?)", null);
      return;
    }
    call.timer.cancel(false);
    Messages.complete(call.completeOn, call.result, payload, null);
  }

  /**
   * The answer to the oldest waiting call is a failure (an HTTP status other than 200): that call
   * fails with {@code failure}; the others, and the connection, carry on.
   */
  public void onFailedResponse(Throwable failure) {
    Call call;
    synchronized (lock) {
      if (closed) {
        return; // the call has already failed
      }
      call = awaiting.peek();
      if (call == null || !call.written) {
        call = null;
      } else {
        awaiting.poll();
      }
    }
    if (call == null) {
      close("a response arrived with no call pending (is the peer a Thrift server?)", failure);
      return;
    }
    call.timer.cancel(false);
    Messages.complete(call.completeOn, call.result, null, failure);
  }

  /** The connection became writable again: resume the drain. */
  public void writable() {
    requestDrain();
  }

  /**
   * Closes the table and the connection, and fails every waiting call. Idempotent: the first reason
   * wins.
   *
   * @param reason what happened, for the messages
   * @param cause the failure, or {@code null}; a {@code TTransportException} gives its type
   */
  public void close(String reason, Throwable cause) {
    List<Object> failed;
    Runnable closed;
    synchronized (lock) {
      failed = markClosed(reason);
      closed = onClose;
    }
    if (failed == null) {
      return;
    }
    link.closeConnection(); // first: whoever sees a failure sees the connection closed
    fail(failed, reason, cause, null);
    closed.run();
  }

  private TTransportException refusal() {
    if (closed) {
      return ClientErrors.channelClosed(peer, closeReason);
    }
    int pending = awaiting.size() + unwrittenOneways;
    if (pending >= maxPendingCalls) {
      return new TooManyPendingCallsException(pending, maxPendingCalls, peer);
    }
    return null;
  }

  private void requestDrain() {
    if (drainScheduled.compareAndSet(false, true)) {
      try {
        link.execute(this::drain);
      } catch (RejectedExecutionException e) {
        drainScheduled.set(false);
        close("its IO thread was shut down", e);
      }
    }
  }

  private void drain() {
    boolean wrote = false;
    try {
      while (link.writable()) {
        Outbound next;
        synchronized (lock) {
          next = closed ? null : outbound.poll();
          if (next instanceof Call) {
            ((Call) next).written = true;
          }
        }
        if (next == null) {
          break;
        }
        wrote = true;
        link.write(next.payload, next instanceof Oneway, failure -> written(next, failure));
      }
      if (wrote) {
        link.flush();
      }
    } finally {
      drainScheduled.set(false);
    }
    boolean more;
    synchronized (lock) {
      more = !closed && !outbound.isEmpty();
    }
    if (more && link.writable()) {
      requestDrain(); // arrived after the last poll, or writability came back meanwhile
    }
  }

  private void written(Outbound message, Throwable failure) {
    if (message instanceof Oneway) {
      Oneway oneway = (Oneway) message;
      synchronized (lock) {
        unwrittenOneways--;
      }
      if (failure == null) {
        Messages.complete(oneway.completeOn, oneway.result, null, null);
        return;
      }
      Messages.complete(
          oneway.completeOn,
          oneway.result,
          null,
          ClientErrors.connectionClosed(peer, 0, "a write failed: " + failure, failure));
    }
    if (failure != null) {
      close("a write failed: " + ClientErrors.describe(failure), failure);
    }
  }

  private void timeOut(Call call) {
    List<Object> others;
    int wasPending;
    Runnable closed;
    String reason = "a call timed out after " + call.timeout.toMillis() + " ms";
    synchronized (lock) {
      wasPending = awaiting.size();
      if (this.closed || !awaiting.remove(call)) {
        return; // answered, or failed by a close, before the timer fired
      }
      // One step: no late response is matched to the next call, and no retry made from the
      // failure callback joins a table that is about to close.
      others = markClosed(reason);
      closed = onClose;
    }
    link.closeConnection();
    Messages.complete(
        call.completeOn,
        call.result,
        null,
        ClientErrors.callTimedOut(peer, call.timeout.toMillis(), wasPending));
    fail(others, reason, null, call);
    closed.run();
  }

  /** Marks the table closed and takes out every waiting call and unwritten oneway; under lock. */
  private List<Object> markClosed(String reason) {
    if (closed) {
      return null;
    }
    closed = true;
    closeReason = reason;
    List<Object> taken = new ArrayList<>(awaiting);
    for (Outbound o : outbound) {
      if (o instanceof Oneway) {
        taken.add(o);
      }
    }
    awaiting.clear();
    outbound.clear();
    unwrittenOneways = 0;
    return taken;
  }

  private void fail(List<Object> failed, String reason, Throwable cause, Call skip) {
    if (failed.isEmpty()) {
      return;
    }
    TTransportException e = ClientErrors.connectionClosed(peer, failed.size(), reason, cause);
    for (Object o : failed) {
      if (o instanceof Call) {
        Call call = (Call) o;
        if (call != skip) {
          call.timer.cancel(false);
          Messages.complete(call.completeOn, call.result, null, e);
        }
      } else {
        Messages.complete(((Oneway) o).completeOn, ((Oneway) o).result, null, e);
      }
    }
  }
}
