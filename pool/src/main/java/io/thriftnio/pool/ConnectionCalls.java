package io.thriftnio.pool;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.CallerContext;
import io.thriftnio.core.internal.client.ClientInterception;
import io.thriftnio.core.internal.client.ClientInterception.Call;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.Continuations;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.HeaderSlot;
import io.thriftnio.core.util.internal.TooManyCallsInFlightException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * One call of a {@link MultiplexedPool} on one connection with a slot taken for it: the exchange or
 * oneway send, the reply check, the interceptors around it, and the slot given back to {@link
 * SharedChannels} with what the outcome says about the connection.
 */
final class ConnectionCalls {
  private final SharedChannels shared;
  private final ReplyCheck replies;
  private final TProtocolFactory protocolFactory;

  /** {@code null} without interceptors; see {@link MultiplexedPool#intercept}. */
  private ClientInterception interception;

  /**
   * The channels' own request timeout in nanoseconds, 0 if unknown; see {@link
   * MultiplexedPool#callTimeout}.
   */
  private long requestTimeoutNanos;

  ConnectionCalls(SharedChannels shared, ReplyCheck replies, TProtocolFactory protocolFactory) {
    this.shared = shared;
    this.replies = replies;
    this.protocolFactory = protocolFactory;
  }

  void intercept(ClientInterception interception) {
    this.interception = interception;
  }

  boolean intercepts() {
    return interception != null;
  }

  /** The calling thread's context, for an attempt sent from another thread; may be null. */
  CallerContext caller() {
    ClientInterception chain = interception;
    return CallerContext.here(chain == null ? null : chain.capturing());
  }

  void callTimeout(Duration timeout) {
    this.requestTimeoutNanos = timeout.toNanos();
  }

  /**
   * The exchange on a connection with a slot taken for it. A timed-out call fails alone and leaves
   * the connection open (its late reply is owed; see {@link ThriftChannel#abandonedCalls()}); what
   * counts against the endpoint is decided by {@link SharedChannels#callEnded}.
   */
  CompletableFuture<ByteBuffer> exchange(
      TMessage sent, Conn conn, ByteBuffer request, Duration timeout, CallState state) {
    Call call;
    try {
      call = begin(sent, conn);
    } catch (TException refusal) {
      return CompletableFuture.failedFuture(refusal);
    }
    CompletableFuture<ByteBuffer> result = new Continuations.CallFuture<>();
    CompletableFuture<ByteBuffer> reply;
    // The interceptors' request headers reach the channel as the slot current while it is called.
    HeaderSlot headers = call == null ? null : ClientInterception.slotFor(call);
    HeaderSlot before = call == null ? null : HeaderSlot.makeCurrent(headers);
    try {
      // Under a deadline, sent with the time left at most, so the channel gives up its slot then.
      Duration bounded = state == null ? timeout : state.bound(timeout, requestTimeoutNanos);
      reply =
          bounded == null
              ? conn.channel.exchange(request)
              : conn.channel.exchange(request, bounded);
    } catch (RuntimeException e) {
      shared.release(conn, connectionFailure(e));
      end(call, null, e);
      return CompletableFuture.failedFuture(e);
    } finally {
      if (call != null) {
        HeaderSlot.makeCurrent(before);
      }
    }
    reply.whenComplete(
        (response, failure) -> {
          if (failure != null) {
            shared.callEnded(conn, failure, state != null && state.explains(failure));
            shared.release(conn, connectionFailure(failure));
            finish(
                call,
                result,
                headers,
                () -> end(call, null, failure),
                () -> result.completeExceptionally(failure));
            return;
          }
          TException mismatch = replies.mismatch(sent, response, conn.endpoint);
          // A whole reply that refuses the call "not run": the connection is fit, and the
          // attempt fails with it so that the call may go to another endpoint (CallAttempts).
          TApplicationException refusal = mismatch == null ? replies.notRun(response) : null;
          shared.callEnded(conn, mismatch != null ? mismatch : refusal, false);
          if (refusal != null && Failures.draining(refusal)) {
            // Its server drains and closes it once quiet: no new call on it, even when its
            // endpoint stays (the last one up), so that it can become quiet.
            conn.owner.retire(conn);
          }
          shared.release(conn, mismatch);
          Runnable complete;
          if (mismatch != null) {
            complete = () -> result.completeExceptionally(mismatch);
          } else if (refusal != null) {
            NotRunReply refused = new NotRunReply(response, refusal, conn.endpoint);
            complete = () -> result.completeExceptionally(refused);
          } else {
            complete = () -> result.complete(response);
          }
          finish(call, result, headers, () -> end(call, response, mismatch), complete);
        });
    return result;
  }

  /**
   * Ends {@code call} and completes the caller's future: through the interceptors' {@code attach}
   * scopes, the reply's headers given to the context first, when there are interceptors.
   */
  private void finish(
      Call call,
      CompletableFuture<?> result,
      HeaderSlot headers,
      Runnable ending,
      Runnable complete) {
    if (call == null) {
      complete.run();
    } else {
      interception.finish(call, result, headers.reply(), ending, complete);
    }
  }

  /** The oneway send on a connection with a slot taken for it. */
  CompletableFuture<Void> send(TMessage sent, Conn conn, ByteBuffer request) {
    Call call;
    try {
      call = begin(sent, conn);
    } catch (TException refusal) {
      return CompletableFuture.failedFuture(refusal);
    }
    CompletableFuture<Void> written;
    try {
      written = conn.channel.send(request);
    } catch (RuntimeException e) {
      shared.release(conn, connectionFailure(e));
      end(call, null, e);
      return CompletableFuture.failedFuture(e);
    }
    if (call == null) {
      return written.whenComplete(
          (ok, failure) -> shared.release(conn, connectionFailure(failure)));
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    written.whenComplete(
        (ok, failure) -> {
          shared.release(conn, connectionFailure(failure));
          if (failure != null) {
            call.endWithFailure(failure);
            result.completeExceptionally(failure);
          } else {
            call.end(CallOutcome.ONEWAY, null);
            result.complete(null);
          }
        });
    return result;
  }

  /** Completes {@code to} as {@code from} completes; see {@link Continuations#relay}. */
  static <T> void relay(CompletableFuture<T> from, CompletableFuture<T> to) {
    Continuations.relay(from, to);
  }

  /**
   * Runs the interceptors' {@code beforeCall} for {@code sent} on {@code conn}: {@code null}
   * without interceptors. A refusal gives the connection back untouched: nothing was written.
   */
  private Call begin(TMessage sent, Conn conn) throws TException {
    if (interception == null) {
      return null;
    }
    try {
      return interception.begin(sent.name, sent.seqid, sent.type, conn.endpoint);
    } catch (TException refusal) {
      shared.release(conn, null);
      throw refusal;
    }
  }

  /** Ends {@code call}, if any: with its reply, or with the failure that stands in for one. */
  private void end(Call call, ByteBuffer response, Throwable failure) {
    if (call == null) {
      return;
    }
    if (failure != null) {
      call.endWithFailure(failure);
    } else {
      call.endWithReply(response, protocolFactory);
    }
  }

  /**
   * {@code failure} if it condemns the connection, or {@code null} if the channel refused the
   * request before writing a byte, or timed the call out alone, and stays usable for the calls it
   * carries. Without this, one oversized request or one slow call would close a connection and fail
   * up to {@code maxInFlight - 1} other calls.
   */
  private static Throwable connectionFailure(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof FrameSizeException
        || cause instanceof TooManyCallsInFlightException
        || cause instanceof IllegalArgumentException
        || cause instanceof CallTimeoutException) {
      return null; // a timed-out call leaves the connection open, owing its late reply
    }
    return failure;
  }
}
