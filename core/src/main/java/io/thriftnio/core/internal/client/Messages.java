package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.apache.thrift.protocol.TMessage;

/** The messages of a {@link PipelinedCalls} table, calls and oneways, and their completion. */
final class Messages {
  private Messages() {}

  /** The frame-size failure of a request, or {@code null}: such a request fails alone. */
  static FrameSizeException checkSize(ByteBuffer request, int maxFrameSize, SocketAddress peer) {
    // The request fails alone, before anything is written; the channel stays usable.
    if (request.remaining() > maxFrameSize) {
      TMessage header = MessageHeaders.inPlace(request);
      return FrameSizeException.ofRequest(
          request.remaining(), maxFrameSize, peer, header != null ? header.name : null);
    }
    try {
      FrameLength.check(request.remaining(), maxFrameSize, peer);
      return null;
    } catch (FrameSizeException e) {
      return e; // empty
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

  /** Completes a oneway message's future once written, or with the write's failure. */
  static void written(Oneway oneway, Throwable failure, SocketAddress peer) {
    Messages.complete(
        oneway.completeOn,
        oneway.result,
        null,
        failure == null
            ? null
            : ClientErrors.connectionClosed(peer, 0, "a write failed: " + failure, failure));
  }

  /** Fails each call of {@code taken} with its own failure, made from its method (or null). */
  static void failEach(List<Object> taken, Function<String, Throwable> failure) {
    for (Object o : taken) {
      if (o instanceof Call) {
        Call call = (Call) o;
        complete(call.completeOn, call.result, null, failure.apply(call.method));
      } else {
        complete(((Oneway) o).completeOn, ((Oneway) o).result, null, failure.apply(null));
      }
    }
  }

  /** Fails every call and oneway of {@code taken} with {@code failure}. */
  static void failAll(List<Object> taken, Throwable failure) {
    for (Object o : taken) {
      if (o instanceof Call) {
        Call call = (Call) o;
        complete(call.completeOn, call.result, null, failure);
      } else {
        complete(((Oneway) o).completeOn, ((Oneway) o).result, null, failure);
      }
    }
  }

  /** A message accepted and not yet handed to the link. */
  abstract static class Outbound {
    final ByteBuffer payload;
    final Executor completeOn;

    /** The headers to send and the reply's, or {@code null}: none to send, no one to tell. */
    final WireHeaders headers;

    /** The sequence id of its THeader header: the connection's own, set when it is written. */
    int wireSeqId; // under the lock

    Outbound(ByteBuffer payload, Executor completeOn, WireHeaders headers) {
      this.payload = payload;
      this.completeOn = completeOn;
      this.headers = headers;
    }

    /** The request's headers; empty for none. */
    Map<String, String> requestHeaders() {
      return headers == null ? Map.of() : headers.request();
    }
  }

  static final class Call extends Outbound {
    final CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    final Duration timeout;

    /** When its timeout passes, as {@code System.nanoTime()}. */
    final long deadline;

    /** The request's sequence id, or {@link MessageHeaders#UNKNOWN_SEQ_ID}: checks a late reply. */
    final long seqId;

    /** The request's method, or {@code null} if its header cannot be read in place. */
    final String method;

    boolean written; // under the lock
    boolean abandoned; // under the lock: timed out after it was written; its reply is still owed
    boolean behind; // under the lock, once abandoned: it waited behind an abandoned call
    boolean settled; // under the lock: answered, or failed by a close

    Call(ByteBuffer payload, Duration timeout, Executor completeOn, WireHeaders headers) {
      super(payload, completeOn, headers);
      this.timeout = timeout;
      this.deadline = System.nanoTime() + timeout.toNanos();
      this.seqId = MessageHeaders.seqId(payload);
      this.method = MessageHeaders.methodName(payload);
    }
  }

  static final class Oneway extends Outbound {
    final CompletableFuture<Void> result = new CompletableFuture<>();

    Oneway(ByteBuffer payload, Executor completeOn, WireHeaders headers) {
      super(payload, completeOn, headers);
    }
  }
}
