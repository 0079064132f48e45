package io.thriftnio.core.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.client.Messages.Call;
import io.thriftnio.core.internal.client.Messages.Oneway;
import io.thriftnio.core.internal.client.Messages.Outbound;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.TooManyCallsInFlightException;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.thrift.transport.TTransportException;

/**
 * The call table of one pipelined client connection, the same on every transport: requests leave in
 * call order, responses complete the oldest waiting call (first in, first out; on THeader, the call
 * whose request header carried the reply's sequence id: {@link AwaitingCalls}), every call has its
 * own timeout ({@link CallTimers}), and a close fails every waiting call at once with one message
 * naming the peer and the count. An IO adapter implements {@link CallLink} and reports what its
 * connection reads and how it ends; this class decides everything else.
 *
 * <p>A call that times out fails alone ({@link CallTimeoutException}). Once written, it keeps its
 * place in the order, abandoned, and the reply that comes for it later is dropped, after a check
 * that its sequence id is the one sent (a different one means the order is broken: the connection
 * closes). The connection closes as stuck only when no reply at all has come for {@code
 * lateReplyTimeout} while one is owed ({@link LateReplies}).
 *
 * <pre>
 *  exchange(a) exchange(b) send(c) exchange(d)   callers: queue under a short lock, never write
 *      outbound [a][b][c][d]  --drain--&gt;  Link.write x4, Link.flush x1   (one drainer at a time)
 *      awaiting  a  b  d      &lt;--onResponse(A), (B), (D)   A completes a, B b, D d
 * </pre>
 *
 * <p>Bounds: calls awaiting responses plus oneway messages not yet written are at most {@code
 * maxCallsInFlightPerConnection}; one more fails at once with {@link
 * TooManyCallsInFlightException}, nothing is sent and the channel stays usable. The drain stops
 * while {@link CallLink#writable()} is false and resumes on {@link #writable()}, so a slow socket
 * holds the caller's messages here, counted, and not in an unbounded IO-library queue.
 *
 * <p>This class is the one owner of the connection's call state: the queue to write, the calls
 * awaiting replies, their timers, the replies owed, the close. It is guarded by a lock private to
 * this class; every change of a call's state ({@code written}, {@code abandoned}, {@code settled})
 * is made here under it. The collaborators are its parts, each with its own invariant and used only
 * under that lock ({@link AwaitingCalls}: the order and the matching of replies; {@link
 * CallTimers}: the one armed timer, and the pure decision of which calls time out together; {@link
 * LateReplies}: the replies owed and the stuck rule), and {@link Messages}, the messages and their
 * completion. One drainer at a time writes, flagged without the lock.
 *
 * <p>No lock is held while a link writes or while a future completes: a busy connection never
 * stalls the IO thread of another. Futures complete on the callback executor, outside the lock.
 */
public final class PipelinedCalls {

  private final SocketAddress peer;
  private final int maxFrameSize;
  private final int maxCallsInFlightPerConnection;
  private final CallLink link;

  /** Whether a drain is scheduled or running: one drainer at a time, without the lock. */
  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  private final boolean carriesHeaders;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final CallTimers timers;

  /** Request order, abandoned calls kept. */
  @GuardedBy("lock")
  private final AwaitingCalls awaiting;

  @GuardedBy("lock")
  private final ArrayDeque<Outbound> outbound = new ArrayDeque<>();

  @GuardedBy("lock")
  private final LateReplies late;

  @GuardedBy("lock")
  private int nextWireSeqId;

  /** Written under the lock (late.owed()), for readers without it. */
  private volatile int abandoned;

  @GuardedBy("lock")
  private int unwrittenOneways;

  /** Written under the lock, read without it. */
  private volatile boolean answeredAny;

  @GuardedBy("lock")
  private boolean closed;

  @GuardedBy("lock")
  private String closeReason;

  /** Under the lock until closed. */
  @GuardedBy("lock")
  private final List<Runnable> closeActions = new ArrayList<>(1);

  /**
   * @param peer the server, as the caller named it; every message names it
   * @param options its {@code maxFrameSize} (the largest request sent), {@code
   *     maxCallsInFlightPerConnection} and {@code lateReplyTimeout}
   * @param timer runs the per-call timers
   * @param link the connection
   */
  public PipelinedCalls(
      SocketAddress peer, ClientOptions options, ScheduledExecutorService timer, CallLink link) {
    this.peer = peer;
    this.maxFrameSize = options.maxFrameSize();
    this.maxCallsInFlightPerConnection = options.maxCallsInFlightPerConnection();
    this.timers = new CallTimers(timer, this::checkDeadlines);
    this.link = link;
    WireKind wire = options.wireKind();
    this.carriesHeaders = wire == WireKind.HEADER || wire == WireKind.HTTP;
    this.awaiting = new AwaitingCalls(wire == WireKind.HEADER);
    this.late =
        new LateReplies(
            options.lateReplyTimeout().toNanos(), LateReplies.Timer.of(timer), this::checkStuck);
  }

  /**
   * Runs {@code action} once, after the table has closed (for a registry of open connections, a
   * pool): at once if it has. Actions added earlier run first.
   */
  public void onClose(Runnable action) {
    synchronized (lock) {
      if (!closed) {
        closeActions.add(action);
        return;
      }
    }
    action.run();
  }

  /**
   * A call that fails alone with a {@link CallTimeoutException} after {@code timeout}, its future
   * completing on {@code completeOn} ({@code Runnable::run}: on the IO or timer thread, for a
   * caller that hops to its own executor next). Its {@code headers} ({@code null} for none) are
   * sent where the wire carries them, and told of the reply's before the future completes.
   */
  public CompletableFuture<ByteBuffer> exchange(
      ByteBuffer request, Duration timeout, Executor completeOn, WireHeaders headers) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)"));
    }
    Call call = new Call(request.duplicate(), timeout, completeOn, headers);
    synchronized (lock) {
      TTransportException refused = refusal(request);
      if (refused != null) {
        return CompletableFuture.failedFuture(refused);
      }
      try {
        timers.due(call.deadline); // before the call is queued: a refused timer refuses the call
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

  /**
   * A oneway message whose future completes on {@code completeOn} once it is written; it counts
   * against the bound until then. Its {@code headers} may be {@code null}.
   */
  public CompletableFuture<Void> send(
      ByteBuffer request, Executor completeOn, WireHeaders headers) {
    Oneway oneway = new Oneway(request.duplicate(), completeOn, headers);
    synchronized (lock) {
      TTransportException refused = refusal(request);
      if (refused != null) {
        return CompletableFuture.failedFuture(refused);
      }
      unwrittenOneways++;
      outbound.add(oneway);
    }
    requestDrain();
    return oneway.result;
  }

  /**
   * Calls awaiting responses (abandoned ones included: their replies are still owed) plus oneway
   * messages not yet written.
   */
  public int pendingCalls() {
    synchronized (lock) {
      return awaiting.size() + unwrittenOneways;
    }
  }

  /** Calls that timed out after they were written and whose replies have not arrived yet. */
  public int abandonedCalls() {
    return abandoned;
  }

  /** Whether the table takes calls: not closed. */
  public boolean isOpen() {
    synchronized (lock) {
      return !closed;
    }
  }

  /** Whether any reply has come on the connection: a close before one has a likely cause. */
  public boolean answeredAny() {
    return answeredAny;
  }

  /** One response frame from the connection, in arrival order. */
  public void onResponse(ByteBuffer payload) {
    answer(payload, null, 0, Map.of(), true);
  }

  /**
   * One reply with headers: on THeader, it answers the call whose request's header carried {@code
   * wireSeqId}; on HTTP, the oldest.
   */
  public void onResponse(ByteBuffer payload, int wireSeqId, Map<String, String> headers) {
    answer(payload, null, wireSeqId, headers, false);
  }

  /**
   * The answer to the oldest waiting call is a failure (an HTTP status other than 200): that call
   * fails with {@code failure}; the others, and the connection, carry on.
   */
  public void onFailedResponse(Throwable failure) {
    answer(null, failure, 0, Map.of(), true);
  }

  private void answer(
      ByteBuffer payload,
      Throwable failure,
      int wireSeqId,
      Map<String, String> headers,
      boolean fifo) {
    Call call;
    String unmatched = null;
    synchronized (lock) {
      if (closed) {
        return; // it answers a call that has already failed with the connection
      }
      call = awaiting.take(wireSeqId, payload, fifo);
      answeredAny = true;
      if (call != null) {
        call.settled = true;
        late.replied(call.abandoned, System.nanoTime());
        abandoned = late.owed();
      } else {
        unmatched = awaiting.unmatched(wireSeqId, fifo);
      }
    }
    if (call == null) {
      close(unmatched, failure);
    } else if (call.abandoned) {
      String outOfOrder = LateReplies.outOfOrder(call, payload);
      if (outOfOrder != null) {
        close(outOfOrder, null); // else dropped: its caller heard of the timeout already
      }
    } else {
      if (call.headers != null) {
        call.headers.replied(headers);
      }
      Messages.complete(call.completeOn, call.result, payload, failure);
    }
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
    List<Runnable> actions;
    synchronized (lock) {
      failed = markClosed(reason);
      actions = failed == null ? List.of() : new ArrayList<>(closeActions);
    }
    if (failed == null) {
      return;
    }
    link.closeConnection(); // first: whoever sees a failure sees the connection closed
    if (failed.isEmpty()) {
      // nothing waited
    } else if (cause instanceof IOException) {
      // The connection failed under the calls (a reset): each hears it in the words of every
      // client, naming its own method.
      String pending = " (" + failed.size() + " calls were pending)";
      Messages.failEach(
          failed, method -> ClientErrors.connectionFailed(peer, method, cause, pending));
    } else {
      Messages.failAll(failed, ClientErrors.connectionClosed(peer, failed.size(), reason, cause));
    }
    actions.forEach(Runnable::run); // added before the close: none is added after
  }

  /** Why {@code request} is refused (too large, the table closed, the bound reached), or null. */
  @GuardedBy("lock")
  private TTransportException refusal(ByteBuffer request) {
    FrameSizeException tooLarge = Messages.checkSize(request, maxFrameSize, peer);
    if (tooLarge != null) {
      return tooLarge; // fails alone, before anything is written; the channel stays usable
    } else if (closed) {
      return ClientErrors.channelClosed(peer, closeReason);
    }
    int pending = awaiting.size() + unwrittenOneways;
    if (pending >= maxCallsInFlightPerConnection) {
      return new TooManyCallsInFlightException(pending, maxCallsInFlightPerConnection, peer);
    }
    return null;
  }

  /** Runs a drain on the link's thread unless one is scheduled already. */
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

  /**
   * The drain, on the link's thread, one at a time: takes the queued messages in call order, hands
   * each to the link (with its headers where the wire carries them) without the lock, flushes once,
   * and stops while the link is not writable.
   */
  private void drain() {
    boolean wrote = false;
    try {
      while (link.writable()) {
        Outbound next = nextToWrite();
        if (next == null) {
          break;
        }
        wrote = true;
        if (carriesHeaders) {
          writeWithHeaders(next);
        } else {
          link.write(next.payload, next instanceof Oneway, failure -> written(next, failure));
        }
      }
      if (wrote) {
        link.flush();
      }
    } finally {
      drainScheduled.set(false);
    }
    if (moreToWrite() && link.writable()) {
      requestDrain(); // arrived after the last poll, or writability came back meanwhile
    }
  }

  /** The request's headers, and the time its caller still waits (rounded up, at least 1 ms). */
  private void writeWithHeaders(Outbound next) {
    long timeoutMillis = 0;
    if (next instanceof Call) {
      long left = ((Call) next).deadline - System.nanoTime();
      timeoutMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999));
    }
    link.write(
        next.payload,
        next instanceof Oneway,
        next.requestHeaders(),
        next.wireSeqId,
        timeoutMillis,
        failure -> written(next, failure));
  }

  /** The next message to write, marked written, or {@code null} when there is none (or closed). */
  private Outbound nextToWrite() {
    synchronized (lock) {
      Outbound next = closed ? null : outbound.poll();
      if (next instanceof Call) {
        ((Call) next).written = true;
      }
      if (next != null && carriesHeaders) {
        next.wireSeqId = nextWireSeqId++;
      }
      return next;
    }
  }

  /** Whether messages wait to be written. */
  private boolean moreToWrite() {
    synchronized (lock) {
      return !closed && !outbound.isEmpty();
    }
  }

  /** {@code message} was written, or failed to be ({@code failure}). */
  private void written(Outbound message, Throwable failure) {
    if (message instanceof Oneway) {
      Oneway oneway = (Oneway) message;
      synchronized (lock) {
        if (!closed) { // a close zeroed the count, this oneway included
          unwrittenOneways--;
        }
      }
      Messages.written(oneway, failure, peer);
      if (failure == null) {
        return;
      }
    }
    if (failure != null) {
      close("a write failed: " + ClientErrors.describe(failure), failure);
    }
  }

  private void timeOut(Call call) {
    List<Call> overdue;
    int pending;
    synchronized (lock) {
      if (closed || call.settled || call.abandoned) {
        return; // answered, or failed by a close, or timed out with an earlier call
      }
      pending = awaiting.size() + unwrittenOneways;
      if (call.written) {
        long now = System.nanoTime();
        CallTimers.Overdue due = CallTimers.overdueUpTo(awaiting.aheadOf(call), call, now);
        overdue = due.calls();
        boolean behind = due.firstBehind();
        for (Call c : overdue) { // abandoned: each keeps its place, its reply is owed from now
          c.behind = behind;
          c.abandoned = true;
          late.owe(now);
          behind = true;
        }
        abandoned = late.owed();
      } else { // nothing was sent: the call leaves the order and nothing is owed for it
        awaiting.remove(call);
        outbound.remove(call);
        call.settled = true;
        overdue = List.of(call);
      }
    }
    for (Call c : overdue) {
      CallTimeoutException e =
          ClientErrors.callTimedOut(
              peer, c.method, c.timeout.toMillis(), pending, c.written, c.behind);
      Messages.complete(c.completeOn, c.result, null, e);
    }
  }

  /** The call timers' task of {@code generation} ran: times out the calls due, oldest first. */
  private void checkDeadlines(long generation) {
    List<Call> due = new ArrayList<>(1);
    try {
      synchronized (lock) {
        if (closed || !timers.fired(generation)) {
          return;
        }
        timers.sweep(awaiting, System.nanoTime(), due);
      }
    } catch (RejectedExecutionException e) {
      close("its timer is shut down; resources closed?", e); // no call may wait without a timer
    }
    due.forEach(this::timeOut);
  }

  /** The late-reply timer fired: closes the connection if it is stuck. */
  private void checkStuck() {
    String stuck;
    synchronized (lock) {
      stuck = closed ? null : late.onTimer(System.nanoTime());
    }
    if (stuck != null) {
      close(stuck, null);
    }
  }

  /** Marks the table closed and takes out every waiting call and unwritten oneway. */
  @GuardedBy("lock")
  private List<Object> markClosed(String reason) {
    if (closed) {
      return null;
    }
    closed = true;
    closeReason = reason;
    List<Object> taken = new ArrayList<>(awaiting.size());
    for (Call c : awaiting.takeAll()) {
      if (!c.abandoned) { // an abandoned call's caller has heard already
        c.settled = true;
        taken.add(c);
      }
    }
    for (Outbound o : outbound) {
      if (o instanceof Oneway) {
        taken.add(o);
      }
    }
    outbound.clear();
    unwrittenOneways = 0;
    late.clear();
    timers.cancel();
    abandoned = 0;
    return taken;
  }
}
