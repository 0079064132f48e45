package io.thriftnio.core.internal.server;

import io.thriftnio.core.wire.Envelope;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The ordered reply writer of one {@link CallSequencer}: takes every reply that is due from the
 * head of the sequencer's queue and writes it, flushes once per read batch or hand-over, closes the
 * connection after a last reply or once a drain has answered everything.
 *
 * <p>Threads: one writer at a time, and only on a thread where {@link
 * ServerConnection#inIoThread()} is true; a thread that finds a writer at work leaves its reply to
 * it (the writer looks again before it stops), and a completion on another thread hands the writing
 * over to the IO thread once per batch. The fields marked so, and the sequencer's queue and flags,
 * are guarded by the sequencer's monitor, held only for bookkeeping: the connection's IO methods
 * are called outside it.
 */
final class ReplyWriter implements Envelope.Outbound {

  private final CallSequencer calls;
  private final ServerConnection connection;
  private final Runnable writeTask = this::writeHandedOver;
  private final boolean writesFromAnyThread;

  // Guarded by calls.
  private boolean writing;
  private boolean writeHandedOver;

  /** Owned by the writer. */
  private final ArrayDeque<Call> outbox = new ArrayDeque<>();

  /** The reply being written: whether it sent anything, and whether its bytes are dropped. */
  private boolean sent;

  private boolean dropping;

  ReplyWriter(CallSequencer calls, ServerConnection connection) {
    this.calls = calls;
    this.connection = connection;
    this.writesFromAnyThread = connection.writesFromAnyThread();
  }

  /** Writes what is due, here on the IO thread, or handed over to it if anything is due. */
  void writeReady() {
    if (!connection.inIoThread()) {
      boolean handOver;
      synchronized (calls) {
        Call head = calls.slots.peekFirst();
        if (writeHandedOver || ((head == null || !head.done) && !calls.outOfOrderDone)) {
          return; // the writer already handed over will take this one too, or it is not due yet
        }
        handOver = !(writesFromAnyThread && calls.slots.size() == 1);
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

  /** Runs the writer on the IO thread whether or not a reply is due (a drain may close). */
  void writeOnIoThread() {
    if (connection.inIoThread()) {
      write();
    } else {
      connection.execute(writeTask);
    }
  }

  private void writeHandedOver() {
    synchronized (calls) {
      writeHandedOver = false;
    }
    write();
  }

  /**
   * Writes every reply that is due. One writer at a time; a thread that finds a writer at work
   * leaves its reply to it (the writer looks again before it stops).
   */
  private void write() {
    synchronized (calls) {
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
      boolean buffered = calls.draining && connection.hasBufferedRequests();
      synchronized (calls) {
        if (wrote) {
          calls.unflushed = true;
          wrote = false;
        }
        dropping = calls.closed;
        Call head;
        while ((head = calls.slots.peekFirst()) != null && head.done) {
          calls.slots.pollFirst();
          outbox.add(head);
          if (head.closeAfter && !calls.closed) {
            calls.closed = true; // later requests are never answered
            for (Call call : calls.waiting) {
              call.done = true;
            }
            break;
          }
        }
        if (calls.outOfOrderDone && !calls.closed) {
          takeOutOfOrder();
        }
        if (!outbox.isEmpty()) {
          calls.lastActivityNanos = System.nanoTime();
        } else if (calls.unflushed
            && !dropping
            && !(calls.inReadBatch && calls.readingThread == Thread.currentThread())) {
          calls.unflushed = false;
          flush = true;
        } else if (calls.draining && !calls.closing && calls.slots.isEmpty() && !buffered) {
          calls.closing = true;
          calls.closed = true;
          closeForDrain = true;
        } else {
          writing = false;
          answered = calls.slots.isEmpty() && !calls.closing;
          dispatchWaiting =
              !calls.waiting.isEmpty()
                  || (calls.readingPaused && !calls.draining && !calls.closing);
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
      calls.dispatchWaiting();
    }
  }

  /**
   * Takes the replies that may overtake earlier calls ({@code Envelope.outOfOrder()}) and are done,
   * wherever they are in the queue. Under the sequencer's monitor.
   */
  private void takeOutOfOrder() {
    calls.outOfOrderDone = false;
    for (Iterator<Call> it = calls.slots.iterator(); it.hasNext(); ) {
      Call call = it.next();
      if (call.done && !call.closeAfter && call.head == null && call.envelope.outOfOrder()) {
        it.remove();
        outbox.add(call);
      }
    }
  }

  /** Writes the replies taken from the queue; whether any awaits a flush. */
  private boolean writeOutbox(boolean dropping) {
    boolean wrote = false;
    for (Call call; (call = outbox.poll()) != null; ) {
      Object neverDispatched = call.request;
      if (neverDispatched != null) {
        call.request = null; // a waiting request dropped at close: its memory goes back now
        connection.release(neverDispatched);
        continue;
      }
      this.dropping = dropping;
      sent = false;
      if (call.head != null) {
        send(call.head, null); // an answer without a call
      } else {
        call.envelope.encode(call.reply, call.unreadable, this);
      }
      if (dropping) {
        if (sent) {
          calls.path.counters.droppedResponses.increment(); // the connection closed during the call
        }
        continue;
      }
      wrote |= sent;
      if (call.closeAfter) {
        connection.close(sent); // flushes
        wrote = false;
      }
    }
    return wrote;
  }

  /** One reply's bytes, as its envelope made them; counted, not written, while dropping. */
  @Override
  public void send(ByteBuffer head, ByteBuffer body) {
    sent = true;
    if (!dropping) {
      connection.write(head, body);
    }
  }
}
