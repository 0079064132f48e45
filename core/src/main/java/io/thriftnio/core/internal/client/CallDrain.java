package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.client.Messages.Call;
import io.thriftnio.core.internal.client.Messages.Oneway;
import io.thriftnio.core.internal.client.Messages.Outbound;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The writer of a {@link PipelinedCalls} table: one drainer at a time takes the queued messages in
 * call order, hands each to the link (with its headers where the wire carries them), flushes once
 * per drain, and stops while the link is not writable.
 */
final class CallDrain {
  private final PipelinedCalls calls;
  private final CallLink link;
  private final boolean carriesHeaders;
  private final AtomicBoolean scheduled = new AtomicBoolean();

  CallDrain(PipelinedCalls calls, CallLink link, boolean carriesHeaders) {
    this.calls = calls;
    this.link = link;
    this.carriesHeaders = carriesHeaders;
  }

  /** Runs a drain on the link's thread unless one is scheduled already. */
  void request() {
    if (scheduled.compareAndSet(false, true)) {
      try {
        link.execute(this::drain);
      } catch (RejectedExecutionException e) {
        scheduled.set(false);
        calls.close("its IO thread was shut down", e);
      }
    }
  }

  private void drain() {
    boolean wrote = false;
    try {
      while (link.writable()) {
        Outbound next = calls.nextToWrite();
        if (next == null) {
          break;
        }
        wrote = true;
        if (carriesHeaders) {
          writeWithHeaders(next);
        } else {
          link.write(next.payload, next instanceof Oneway, failure -> calls.written(next, failure));
        }
      }
      if (wrote) {
        link.flush();
      }
    } finally {
      scheduled.set(false);
    }
    if (calls.moreToWrite() && link.writable()) {
      request(); // arrived after the last poll, or writability came back meanwhile
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
        failure -> calls.written(next, failure));
  }
}
