package io.thriftnio.core.internal.server;

import io.thriftnio.core.ProcessorInvoker;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of one server connection: dispatches each request, answers them in request order,
 * bounds the calls in flight, refuses calls the worker executor cannot take, and closes the
 * connection after a bad request or once a drain has answered everything. Transport-neutral: the
 * IO adapter delivers one request message at a time and implements {@link ServerConnection}.
 *
 * <pre>
 *  requests:   [ seq 1 ][ seq 2 ][ seq 3 ]          (one read batch)
 *  completed:            seq 2, seq 3, seq 1        (workers finish out of order)
 *  written:    [ seq 1 ][ seq 2 ][ seq 3 ]          (held back until seq 1 is done; one flush)
 * </pre>
 *
 * <p>Threads: {@link #onRequest}, {@link #readComplete} and {@link #onBadFrame} come from the
 * thread reading the connection, one at a time; calls complete on any thread. State is guarded by
 * this object's monitor, held only for bookkeeping: the processor never runs under it, and replies
 * are written outside it by one writer at a time, which takes every reply that is ready in one go.
 * Replies written while a read batch is delivered are flushed once at {@link #readComplete};
 * replies completed elsewhere are handed to the IO thread once per batch ({@link
 * ServerConnection#execute}) and flushed there.
 *
 * <p>Counting ({@code ServerStats}): a call that ran counts in {@code completedCalls}, and in
 * {@code failedCalls} when it ended in a {@code TApplicationException}, as {@link ProcessorInvoker}
 * reports it (the reply is never parsed again); a refused call counts in {@code overloadedCalls}
 * only; a request whose header is unreadable, and a frame the adapter's decoder refused, count in
 * {@code badFrames} (the latter also in {@code failedCalls} when it is answered); a reply that
 * could not be sent because the connection closed counts in {@code droppedResponses}.
 */
public final class CallSequencer {

  private static final Logger log = LoggerFactory.getLogger(CallSequencer.class);

  /** The server whose processor the current thread runs, if any. */
  private static final ThreadLocal<CallPath> RUNNING = new ThreadLocal<>();

  private final CallPath path;
  private final ServerConnection connection;
  private final Runnable writeTask = this::writeHandedOver;
  private final boolean writesFromAnyThread;

  // Guarded by this.
  /** Requests received whose replies have not been written, in order; includes waiting ones. */
  private final ArrayDeque<Slot> slots = new ArrayDeque<>();
  /** Requests received while maxCallsInFlight calls were in flight, not yet dispatched. */
  private final ArrayDeque<Slot> waiting = new ArrayDeque<>();
  private boolean writing;
  private boolean writeHandedOver;
  private boolean unflushed;
  private boolean inReadBatch;
  private Thread readingThread;
  private boolean dispatchingWaiting;
  private volatile boolean draining;
  /** A close is decided: requests delivered from now on are dropped. */
  private boolean closing;
  /** Nothing more is written: the connection is gone, or its last reply has been written. */
  private boolean closed;

  /** Owned by the writer. */
  private final ArrayDeque<Slot> outbox = new ArrayDeque<>();

  private volatile boolean readingPaused;
  private volatile long lastActivityNanos = System.nanoTime();

  CallSequencer(CallPath path, ServerConnection connection) {
    this.path = path;
    this.connection = connection;
    this.writesFromAnyThread = connection.writesFromAnyThread();
  }

  /**
   * A request arrived. Dispatches it, or keeps it undispatched while {@code
   * maxCallsInFlightPerConnection} calls are in flight.
   *
   * @param payload the request message (no framing), from position to limit; read in place until
   *     {@link ServerConnection#release} is called with {@code request}
   * @param request the adapter's handle for the memory behind {@code payload}, given back to
   *     {@link ServerConnection#release} exactly once; may be {@code null}
   * @return whether the adapter may deliver further requests now; if {@code false}, it stops
   *     reading until {@link ServerConnection#resumeReading()} (requests it has already decoded may
   *     still be delivered)
   */
  public boolean onRequest(ByteBuffer payload, Object request) {
    Slot slot;
    boolean dispatch;
    synchronized (this) {
      if (closing) {
        slot = null; // after a bad request or a close: nothing more is served
        dispatch = false;
      } else {
        inReadBatch = true;
        readingThread = Thread.currentThread();
        lastActivityNanos = System.nanoTime();
        slot = new Slot(payload, request);
        slots.add(slot);
        dispatch = waiting.isEmpty() && slots.size() <= path.maxCallsInFlight;
        if (!dispatch) {
          waiting.add(slot);
        }
      }
    }
    if (slot == null) {
      if (request != null) {
        connection.release(request);
      }
      return false;
    }
    if (dispatch) {
      dispatch(slot);
    }
    // During a drain, requests already read are still delivered and answered.
    boolean buffered = draining && connection.hasBufferedRequests();
    synchronized (this) {
      boolean full = !waiting.isEmpty() || slots.size() >= path.maxCallsInFlight;
      readingPaused = closing || full || (draining && !buffered);
      return !readingPaused;
    }
  }

  /** The adapter has delivered every request of one read: replies written meanwhile leave now. */
  public void readComplete() {
    synchronized (this) {
      inReadBatch = false;
      if (!unflushed) {
        return;
      }
    }
    writeReady();
  }

  /**
   * The adapter's decoder refused a frame (a length {@code <= 0} or above {@code maxFrameSize}) and
   * logged it. After every earlier reply, answers {@code header} with {@code
   * TApplicationException(PROTOCOL_ERROR)} when it is known and not oneway, then closes (output
   * first, see {@link ServerConnection#close}).
   *
   * @param header the refused frame's message header, or {@code null} if it could not be read
   * @param reason the rule the frame broke, with the numbers
   */
  public void onBadFrame(TMessage header, String reason) {
    path.counters.badFrames.increment();
    ByteBuffer reply =
        header == null
            ? null
            : ErrorReplies.applicationException(
                header,
                TApplicationException.PROTOCOL_ERROR,
                "request " + header.name + " rejected: " + reason,
                path.invoker.outputProtocolFactory(),
                path.invoker.maxFrameSize());
    synchronized (this) {
      if (closing) {
        return;
      }
      closing = true;
      readingPaused = true;
      Slot last = new Slot(null, null);
      last.done = true;
      last.reply = reply;
      last.closeAfter = true;
      slots.add(last);
    }
    if (reply != null) {
      path.counters.failedCalls.increment();
    }
    writeReady();
  }

  /**
   * The server is closing: stop reading, answer the requests delivered so far, then close. Closes
   * at once if none is pending. Idempotent.
   */
  public void startDrain() {
    synchronized (this) {
      if (draining) {
        return;
      }
      draining = true;
      readingPaused = true;
    }
    // The writer closes the connection once nothing is pending: it alone may call the IO methods.
    if (connection.inIoThread()) {
      write();
    } else {
      connection.execute(writeTask);
    }
  }

  /**
   * The connection is gone. Requests not yet dispatched are released; calls running release their
   * own requests when they complete, and their replies are counted as dropped.
   */
  public void onClosed() {
    Slot[] neverDispatched;
    synchronized (this) {
      closing = true;
      closed = true;
      readingPaused = true;
      neverDispatched = waiting.toArray(new Slot[0]);
      slots.removeAll(waiting);
      waiting.clear();
    }
    for (Slot slot : neverDispatched) {
      slot.abandon(); // no reply, nothing dropped
    }
    writeReady();
  }

  /** Calls received and not yet answered. */
  public synchronized int pendingCalls() {
    return slots.size();
  }

  /** Whether a close is decided (a bad request, a drain that is over, the connection gone). */
  public synchronized boolean isClosing() {
    return closing;
  }

  /** Whether reading is paused (calls in flight at the limit, a drain, a close). */
  public boolean isReadingPaused() {
    return readingPaused;
  }

  /** {@link System#nanoTime()} of the last request received or reply written. */
  public long lastActivityNanos() {
    return lastActivityNanos;
  }

  /**
   * Whether the current thread is running a call of {@code path}'s server (its processor, or a
   * handler called by it): a {@code close()} there must not wait for the drain, which waits for
   * this very call.
   */
  public static boolean inCallOf(CallPath path) {
    return RUNNING.get() == path;
  }

  /**
   * Releases the request of a worker task that will never run (its executor was shut down).
   *
   * @param task a task the server's worker executor returned from {@code shutdownNow()}
   */
  public static void abandon(Runnable task) {
    if (task instanceof CallSequencer.Slot) {
      ((CallSequencer.Slot) task).abandon();
    }
  }

  private void dispatch(Slot slot) {
    Executor worker = path.worker;
    if (worker == null) {
      slot.run();
      return;
    }
    // Found by fuzzing: a request after an unreadable one must not start on another worker while
    // the connection closes; the check runs here, in request order, on the reading thread.
    Throwable unreadable =
        HeaderCheck.unreadable(
            slot.payload, path.invoker.inputProtocolFactory(), path.headerConfiguration);
    if (unreadable != null) {
      slot.unreadable(unreadable);
      return;
    }
    try {
      worker.execute(slot);
    } catch (RejectedExecutionException e) {
      refuseOverloaded(slot, e);
    }
  }

  private void refuseOverloaded(Slot slot, RejectedExecutionException e) {
    path.counters.overloadedCalls.increment();
    long refused = path.overloadLog.record();
    ProcessorInvoker invoker = path.invoker;
    TMessage header =
        ErrorReplies.readHeader(
            slot.payload, invoker.inputProtocolFactory(), invoker.maxFrameSize());
    if (header == null) {
      slot.unreadable(e);
      return;
    }
    String message =
        "server overloaded: "
            + header.name
            + " refused, the worker executor is full ("
            + overloadDetail()
            + ")";
    if (refused != 0) { // the 1st, 2nd, 4th, 8th ...: under overload, every call would log
      log.warn(
          "{} for {} seqid {} from {} ({} calls refused so far)",
          message,
          header.name,
          header.seqid,
          connection.remoteAddress(),
          refused);
    }
    ByteBuffer reply =
        ErrorReplies.applicationException(
            header,
            TApplicationException.INTERNAL_ERROR,
            message,
            invoker.outputProtocolFactory(),
            invoker.maxFrameSize());
    finish(slot, reply, false);
  }

  private String overloadDetail() {
    Executor worker = path.worker;
    if (worker instanceof ThreadPoolExecutor) {
      ThreadPoolExecutor pool = (ThreadPoolExecutor) worker;
      int queued = pool.getQueue().size();
      return "active="
          + pool.getActiveCount()
          + "/"
          + pool.getMaximumPoolSize()
          + ", queued="
          + queued
          + "/"
          + (queued + pool.getQueue().remainingCapacity());
    }
    return "executor " + worker;
  }

  /** Records a call's outcome, on the thread that completed it, and writes what is ready. */
  private void finish(Slot slot, ByteBuffer reply, boolean closeAfter) {
    Object request = slot.request;
    slot.request = null;
    if (request != null) {
      connection.release(request); // the invoker has read the request for the last time
    }
    synchronized (this) {
      slot.reply = reply;
      slot.closeAfter = closeAfter;
      slot.done = true;
      if (closeAfter) {
        closing = true;
        readingPaused = true;
      }
    }
    writeReady();
  }

  private void writeReady() {
    if (!connection.inIoThread()) {
      boolean handOver;
      synchronized (this) {
        Slot head = slots.peekFirst();
        if (writeHandedOver || head == null || !head.done) {
          return; // the writer already handed over will take this one too, or it is not due yet
        }
        handOver = !(writesFromAnyThread && slots.size() == 1);
        writeHandedOver = handOver;
      }
      if (handOver) {
        connection.execute(writeTask);
        return;
      }
      // The only reply pending, on an adapter that writes from any thread: no hand-over needed.
    }
    write();
  }

  private void writeHandedOver() {
    synchronized (this) {
      writeHandedOver = false;
    }
    write();
  }

  /**
   * Writes every reply that is due. One writer at a time; a thread that finds a writer at work
   * leaves its reply to it (the writer looks again before it stops).
   */
  private void write() {
    synchronized (this) {
      if (writing) {
        return;
      }
      writing = true;
    }
    boolean answered;
    boolean dispatchWaiting;
    boolean wrote = false;
    while (true) {
      boolean dropping;
      boolean flush = false;
      boolean closeForDrain = false;
      boolean buffered = draining && connection.hasBufferedRequests();
      synchronized (this) {
        if (wrote) {
          unflushed = true;
          wrote = false;
        }
        dropping = closed;
        Slot head;
        while ((head = slots.peekFirst()) != null && head.done) {
          slots.pollFirst();
          outbox.add(head);
          if (head.closeAfter && !closed) {
            closed = true; // later requests are never answered
            for (Slot slot : waiting) {
              slot.done = true;
            }
            break;
          }
        }
        if (!outbox.isEmpty()) {
          lastActivityNanos = System.nanoTime();
        } else if (unflushed
            && !dropping
            && !(inReadBatch && readingThread == Thread.currentThread())) {
          unflushed = false;
          flush = true;
        } else if (draining && !closing && slots.isEmpty() && !buffered) {
          closing = true;
          closed = true;
          closeForDrain = true;
        } else {
          writing = false;
          answered = slots.isEmpty() && !closing;
          dispatchWaiting = !waiting.isEmpty() || (readingPaused && !draining && !closing);
          break;
        }
      }
      if (flush) {
        connection.flush();
      } else if (closeForDrain) {
        connection.close(false);
      } else {
        wrote = writeOutbox(dropping);
      }
    }
    if (answered) {
      connection.allAnswered();
    }
    if (dispatchWaiting) {
      dispatchWaiting();
    }
  }

  /** Writes the replies taken from the head of the queue; whether any awaits a flush. */
  private boolean writeOutbox(boolean dropping) {
    boolean wrote = false;
    for (Slot slot; (slot = outbox.poll()) != null; ) {
      Object neverDispatched = slot.request;
      if (neverDispatched != null) {
        slot.request = null; // a waiting request dropped at close: its memory goes back now
        connection.release(neverDispatched);
        continue;
      }
      if (dropping) {
        if (slot.reply != null) {
          path.counters.droppedResponses.increment(); // the connection closed during the call
        }
        continue;
      }
      if (slot.reply != null) {
        connection.write(slot.reply);
        wrote = true;
      }
      if (slot.closeAfter) {
        connection.close(slot.reply != null); // flushes
        wrote = false;
      }
    }
    return wrote;
  }

  /**
   * Dispatches waiting requests while the limit allows, then lets reading resume. One thread runs
   * the loop at a time; it decides to stop and gives up the loop in one step under the lock, so a
   * slot freed by another thread is either seen by this loop or finds the loop free and runs it
   * itself (a window between the two once left a pipelining WORKER connection with requests
   * waiting, reading paused and nothing in flight to wake it).
   */
  private void dispatchWaiting() {
    synchronized (this) {
      if (dispatchingWaiting) {
        return; // the running loop looks at the state again before it stops
      }
      dispatchingWaiting = true;
    }
    boolean resume = false;
    boolean stopped = false;
    try {
      while (true) {
        Slot next;
        synchronized (this) {
          if (closing || waiting.isEmpty() || slots.size() - waiting.size() >= path.maxCallsInFlight) {
            if (readingPaused
                && !draining
                && !closing
                && waiting.isEmpty()
                && slots.size() < path.maxCallsInFlight) {
              readingPaused = false;
              resume = true;
            }
            dispatchingWaiting = false;
            stopped = true;
            break;
          }
          next = waiting.pollFirst();
        }
        dispatch(next);
      }
    } finally {
      if (!stopped) {
        synchronized (this) {
          dispatchingWaiting = false;
        }
      }
    }
    if (resume) {
      connection.resumeReading();
    }
  }

  /** One request's place in the reply order; also its worker task and its completion. */
  private final class Slot implements Runnable, ProcessorInvoker.Completion {
    final ByteBuffer payload;
    /** The adapter's handle, until released; {@code null} after. */
    Object request;
    ByteBuffer reply;
    boolean done;
    boolean closeAfter;

    Slot(ByteBuffer payload, Object request) {
      this.payload = payload;
      this.request = request;
    }

    @Override
    public void run() {
      CallPath outer = RUNNING.get();
      RUNNING.set(path);
      try {
        path.invoker.invoke(payload, this);
      } catch (RuntimeException | Error e) {
        // The invoker promises not to throw; if it did, the request still gets its place back.
        unreadable(e);
      } finally {
        RUNNING.set(outer);
      }
    }

    @Override
    public void replied(ByteBuffer frame, boolean failed) {
      path.counters.completedCalls.increment();
      if (failed) {
        path.counters.failedCalls.increment();
      }
      finish(this, frame, false);
    }

    @Override
    public void unreadable(Throwable cause) {
      path.counters.badFrames.increment();
      log.warn(
          "Closing connection from {}: request message header unreadable ({})",
          connection.remoteAddress(),
          cause.toString());
      finish(this, null, true);
    }

    void abandon() {
      Object r = request;
      request = null;
      if (r != null) {
        connection.release(r);
      }
    }
  }
}
