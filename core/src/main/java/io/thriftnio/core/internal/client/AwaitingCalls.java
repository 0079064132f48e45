package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.client.Messages.Call;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The calls of a {@link PipelinedCalls} table that wait for their replies, in request order,
 * abandoned ones kept (their replies are still owed), and which of them a reply answers: the oldest
 * (replies in request order: framed, unframed, HTTP), or the one whose THeader header carried the
 * reply's sequence id (a THeader server may answer out of order). Guarded by the table's lock.
 */
final class AwaitingCalls implements Iterable<Call> {
  private final ArrayDeque<Call> calls = new ArrayDeque<>();
  private final boolean bySeqId;

  /**
   * @param bySeqId whether replies are matched by the header's sequence id
   */
  AwaitingCalls(boolean bySeqId) {
    this.bySeqId = bySeqId;
  }

  void add(Call call) {
    calls.add(call);
  }

  boolean remove(Call call) {
    return calls.remove(call);
  }

  int size() {
    return calls.size();
  }

  /** Takes out every call, in order. */
  List<Call> takeAll() {
    List<Call> all = new ArrayList<>(calls);
    calls.clear();
    return all;
  }

  @Override
  public Iterator<Call> iterator() {
    return calls.iterator();
  }

  /**
   * Takes out the written call the reply answers: the oldest, or ({@code bySeqId}) the one sent
   * with {@code wireSeqId} whose message sequence id the reply's matches; {@code null} when there
   * is none. A THeader peer that does not echo the header's sequence id (Apache Thrift's Python
   * server writes the message's there) answers in request order: its reply is the oldest call's
   * when their message sequence ids agree.
   *
   * @param wireSeqId the sequence id of the reply's THeader header; ignored in order
   * @param reply the reply message, whose own sequence id is read; {@code null} for a failure
   * @param fifo whether the reply carries no header (an HTTP status): the oldest call, always
   */
  Call take(int wireSeqId, ByteBuffer reply, boolean fifo) {
    Call oldest = calls.peek();
    if (!bySeqId || fifo) {
      if (oldest == null || !oldest.written) {
        return null;
      }
      return calls.poll();
    }
    long messageSeqId = reply == null ? MessageHeaders.UNKNOWN_SEQ_ID : MessageHeaders.seqId(reply);
    for (Iterator<Call> it = calls.iterator(); it.hasNext(); ) {
      Call c = it.next();
      if (c.written && c.wireSeqId == wireSeqId && sameMessage(c, messageSeqId)) {
        it.remove();
        return c;
      }
    }
    if (oldest != null
        && oldest.written
        && oldest.seqId != MessageHeaders.UNKNOWN_SEQ_ID
        && oldest.seqId == messageSeqId) {
      return calls.poll();
    }
    return null;
  }

  private static boolean sameMessage(Call c, long messageSeqId) {
    return c.seqId == MessageHeaders.UNKNOWN_SEQ_ID
        || messageSeqId == MessageHeaders.UNKNOWN_SEQ_ID
        || c.seqId == messageSeqId;
  }

  /**
   * The calls that may hold up {@code call}'s reply, in order, {@code call} last: in order, every
   * call sent before it; matched by sequence id, none (a server answers each when it is done).
   */
  Iterable<Call> aheadOf(Call call) {
    return bySeqId ? List.of(call) : calls;
  }

  /** Why nothing waited for a reply, for the close. */
  String unmatched(int wireSeqId, boolean fifo) {
    return bySeqId && !fifo
        ? "a reply with header seqid " + wireSeqId + " matches no call waiting on the connection"
        : "a response arrived with no call pending (is the peer a Thrift server?)";
  }
}
