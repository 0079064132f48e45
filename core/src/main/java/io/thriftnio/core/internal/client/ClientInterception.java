package io.thriftnio.core.internal.client;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.internal.MessageReader;
import io.thriftnio.core.util.internal.ContextAccess;
import io.thriftnio.core.util.internal.Continuations;
import io.thriftnio.core.util.internal.HeaderSlot;
import io.thriftnio.core.util.internal.MessageHeaders;
import io.thriftnio.core.util.internal.MessageHeaders.ReplyKind;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a chain of {@link ClientInterceptor}s around client calls: the one implementation behind
 * channels and pools. {@link #of} gives {@code null} for an empty chain, so that a caller without
 * interceptors pays one null check per call. Not part of the API.
 */
public final class ClientInterception {
  private static final Logger log = LoggerFactory.getLogger(ClientInterception.class);

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();
  private static final TProtocolFactory JSON = new TJSONProtocol.Factory();

  private final ClientInterceptor[] interceptors;

  /** What those that override {@code attach} make current; {@code null} when none does. */
  private final AttachScopes attaching;

  /** Those that override {@code capture}; {@code null} when none does. */
  private final ClientInterceptor[] capturing;

  private ClientInterception(List<ClientInterceptor> interceptors) {
    this.interceptors = interceptors.toArray(new ClientInterceptor[0]);
    this.attaching = AttachScopes.of(interceptors);
    this.capturing = CallerContext.capturing(interceptors);
  }

  /**
   * The interceptors that capture the caller's context, for {@link CallerContext#here}; {@code
   * null} when none does.
   */
  public ClientInterceptor[] capturing() {
    return capturing;
  }

  /** The chain, or {@code null} if {@code interceptors} is empty. */
  public static ClientInterception of(List<ClientInterceptor> interceptors) {
    return interceptors.isEmpty() ? null : new ClientInterception(interceptors);
  }

  /**
   * Starts a call: runs every {@code beforeCall}, in order.
   *
   * @return the call, to be ended once
   * @throws TException the refusal of an interceptor (the call has then ended as {@code REFUSED});
   *     nothing may be sent
   */
  public Call begin(String method, int seqId, byte type, SocketAddress remote) throws TException {
    Call call = new Call(this, new ClientCallContext(method, seqId, type, remote));
    ClientCallContext c = call.context;
    try {
      for (ClientInterceptor interceptor : interceptors) {
        interceptor.beforeCall(c);
        call.entered++;
      }
      return call;
    } catch (TException refusal) {
      call.end(CallOutcome.REFUSED, refusal);
      throw refusal;
    } catch (Throwable t) {
      // Anything else refuses this call alone; the caller hears what and who.
      TException failure =
          new TException(
              c.methodName()
                  + " to "
                  + ClientErrors.peer(remote)
                  + " refused: client interceptor "
                  + interceptors[call.entered].getClass().getName()
                  + " failed before the call: "
                  + t,
              t);
      call.end(CallOutcome.REFUSED, failure);
      throw failure;
    }
  }

  /**
   * Starts the call whose request is the message in {@code request} (no length prefix, from
   * position to limit; not moved), as a channel sees it: the header is read in the protocol the
   * bytes are in (compact, JSON, else binary, strict or not), which then reads the reply too.
   */
  public Call begin(ByteBuffer request, SocketAddress remote) throws TException {
    TProtocolFactory protocol = protocolOf(request);
    TMessage header;
    try {
      header = MessageReader.header(request, protocol, MessageReader.BOUNDED_BY_FRAME);
    } catch (TException | RuntimeException unreadable) {
      // Not a header we can read: the interceptors still see the call, without a name.
      header = new TMessage("", TMessageType.CALL, 0);
    }
    Call call = begin(header.name, header.seqid, header.type, remote);
    call.protocol = protocol;
    return call;
  }

  /**
   * A channel's call: starts it as {@link #begin(ByteBuffer, SocketAddress)} does, sends it with
   * {@code exchange}, and ends it with what its reply carries. The returned future completes after
   * the interceptors have seen the end; a refusal gives a failed future and sends nothing.
   */
  public CompletableFuture<ByteBuffer> exchange(
      ByteBuffer request,
      SocketAddress remote,
      WireHeaders headers,
      Function<ByteBuffer, CompletableFuture<ByteBuffer>> exchange) {
    return around(request, remote, headers, exchange, (call, reply) -> call.endWithReply(reply));
  }

  /** A channel's oneway message, as {@link #exchange}: it ends once written. */
  public CompletableFuture<Void> send(
      ByteBuffer request,
      SocketAddress remote,
      WireHeaders headers,
      Function<ByteBuffer, CompletableFuture<Void>> send) {
    return around(
        request, remote, headers, send, (call, none) -> call.end(CallOutcome.ONEWAY, null));
  }

  /**
   * The call's request headers (the interceptors' win over a scope's) go to {@code headers}; the
   * reply's reach the context before {@code afterCall}; the caller's continuation (the returned
   * future's dependents) runs inside the {@code attach} scopes, {@code afterCall} too.
   */
  private <T> CompletableFuture<T> around(
      ByteBuffer request,
      SocketAddress remote,
      WireHeaders headers,
      Function<ByteBuffer, CompletableFuture<T>> send,
      BiConsumer<Call, T> ended) {
    Call call;
    CompletableFuture<T> sent;
    try {
      call = begin(request, remote);
    } catch (TException refusal) {
      return CompletableFuture.failedFuture(refusal);
    }
    headers.addRequest(call.context.requestHeaders());
    try {
      sent = send.apply(request);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e); // ended below, inside the scopes, as any failure
    }
    CompletableFuture<T> result = new Continuations.CallFuture<>();
    sent.whenComplete(
        (value, failure) ->
            finish(
                call,
                result,
                headers.reply(),
                failure != null
                    ? () -> call.endWithFailure(failure)
                    : () -> ended.accept(call, value),
                failure != null
                    ? () -> result.completeExceptionally(failure)
                    : () -> result.complete(value)));
    return result;
  }

  /**
   * Ends {@code call} and completes the caller's future, inside the {@code attach} scopes: the
   * reply's headers reach the context, then {@code ending} runs the {@code afterCall}s, then {@code
   * complete} completes the future, whose dependents (and their own hops) run inside the scopes
   * too.
   *
   * @param future the caller's future, which {@code complete} completes: a {@link
   *     Continuations.CallFuture} keeps the scopes for dependents registered after it completed
   * @param replyHeaders the reply's headers; empty without a reply
   */
  public void finish(
      Call call,
      CompletableFuture<?> future,
      Map<String, String> replyHeaders,
      Runnable ending,
      Runnable complete) {
    Runnable[] scopes = attaching == null ? null : attaching.open(call.context);
    try {
      if (!replyHeaders.isEmpty()) {
        ContextAccess.responseHeaders(call.context, replyHeaders);
      }
      ending.run();
      if (scopes == null) {
        complete.run();
      } else {
        Continuations.completing(task -> attaching.around(call.context, task), future, complete);
      }
    } finally {
      AttachScopes.close(scopes);
    }
  }

  /**
   * The request headers the interceptors of {@code call} set in {@code beforeCall}, over those of
   * the {@code HeaderScope} current on this thread, as a slot to make current while the request is
   * handed to a channel (which reads its headers from the current slot); the slot hears of the
   * reply's headers, and tells the scope it was made over.
   */
  public static HeaderSlot slotFor(Call call) {
    HeaderSlot outer = HeaderSlot.current();
    Map<String, String> own = call.context.requestHeaders();
    if (own.isEmpty() && outer != null) {
      return new HeaderSlot(outer.request(), outer);
    }
    Map<String, String> all = new LinkedHashMap<>(outer == null ? Map.of() : outer.request());
    all.putAll(own);
    return new HeaderSlot(Collections.unmodifiableMap(all), outer);
  }

  private static TProtocolFactory protocolOf(ByteBuffer message) {
    if (message.remaining() > 0) {
      int first = message.get(message.position()) & 0xff;
      if (first == 0x82) {
        return COMPACT; // TCompactProtocol's PROTOCOL_ID
      }
      if (first == '[') {
        return JSON; // TJSONProtocol's message: [version, "name", type, seqid, ...
      }
    }
    return BINARY; // reads strict (80 01 ...) and old non-strict headers
  }

  /**
   * How a call that failed without a reply ended: {@code TIMEOUT} for a timeout, {@code
   * TRANSPORT_FAILURE} for anything else.
   */
  static CallOutcome failureOutcome(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TTransportException
              && ((TTransportException) t).getType() == TTransportException.TIMED_OUT
          || t instanceof TimeoutException
          || t instanceof SocketTimeoutException) {
        return CallOutcome.TIMED_OUT;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return CallOutcome.TRANSPORT_FAILURE;
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** One call between its {@code beforeCall}s and its {@code afterCall}s. Ends once. */
  public static final class Call {
    private static final AtomicIntegerFieldUpdater<Call> ENDED =
        AtomicIntegerFieldUpdater.newUpdater(Call.class, "ended");

    private final ClientInterception chain;
    final ClientCallContext context;
    private final long startNanos = System.nanoTime();
    private int entered; // written before the call is handed on, read by whoever ends it
    private volatile int ended;
    private TProtocolFactory protocol = BINARY;

    Call(ClientInterception chain, ClientCallContext context) {
      this.chain = chain;
      this.context = context;
    }

    /** Whether the call is oneway. */
    public boolean isOneway() {
      return context.isOneway();
    }

    /** Whether the call has ended. */
    public boolean hasEnded() {
      return ended != 0;
    }

    /**
     * Ends the call: runs the {@code afterCall} of every interceptor whose {@code beforeCall}
     * returned, last first. Only the first end counts.
     */
    public void end(CallOutcome outcome, Throwable failure) {
      if (!ENDED.compareAndSet(this, 0, 1)) {
        return;
      }
      long nanos = System.nanoTime() - startNanos;
      for (int i = entered - 1; i >= 0; i--) {
        ClientInterceptor interceptor = chain.interceptors[i];
        try {
          interceptor.afterCall(context, outcome, failure, nanos);
        } catch (Throwable t) {
          // The result is decided; a failing afterCall must not change it or skip the others.
          log.warn(
              "Client interceptor {} failed after {} (seqid {}, {}) to {}",
              interceptor.getClass().getName(),
              context.methodName(),
              context.seqId(),
              outcome,
              ClientErrors.peer(context.remoteAddress()),
              t);
        }
      }
    }

    /** Ends the call with the reply in {@code reply}, read in the request's protocol. */
    public void endWithReply(ByteBuffer reply) {
      endWithReply(reply, protocol);
    }

    /**
     * Ends the call with the reply in {@code reply}, read in {@code protocol}: a {@code REPLY} is
     * told by its header and first field; an {@code EXCEPTION} message's {@link
     * TApplicationException} is read (what the generated client will throw) and is the failure the
     * interceptors see.
     */
    public void endWithReply(ByteBuffer reply, TProtocolFactory protocol) {
      ReplyKind kind = MessageHeaders.replyKindInPlace(reply); // binary and compact REPLY
      if (kind == null) {
        TApplicationException failure =
            MessageReader.applicationException(reply, protocol, MessageReader.BOUNDED_BY_FRAME);
        if (failure != null) {
          end(CallOutcome.APPLICATION_EXCEPTION, failure);
          return;
        }
        kind = MessageReader.replyKind(reply, protocol, MessageReader.BOUNDED_BY_FRAME);
      }
      switch (kind) {
        case RESULT:
          end(CallOutcome.SUCCESS, null);
          break;
        case DECLARED_EXCEPTION:
          end(CallOutcome.DECLARED_EXCEPTION, null);
          break;
        default: // an EXCEPTION message is read above: here it could not be
          end(
              CallOutcome.TRANSPORT_FAILURE,
              new TTransportException(
                  TTransportException.CORRUPTED_DATA,
                  "unreadable reply to "
                      + context.methodName()
                      + " from "
                      + ClientErrors.peer(context.remoteAddress())));
      }
    }

    /** Ends the call, which failed without a reply of its own, with {@code failure}. */
    public void endWithFailure(Throwable failure) {
      Throwable cause = unwrap(failure);
      end(failureOutcome(cause), cause);
    }

    /**
     * Ends the call with what decoding its reply gave: {@code null} for a result (or a oneway
     * message written), a declared exception, a {@code TApplicationException} (which the
     * interceptors see as the failure), or a failure.
     */
    public void endWithResult(Throwable failure) {
      Throwable cause = failure == null ? null : unwrap(failure);
      if (cause == null) {
        end(isOneway() ? CallOutcome.ONEWAY : CallOutcome.SUCCESS, null);
      } else if (cause instanceof TApplicationException
          && ((TApplicationException) cause).getType() != TApplicationException.BAD_SEQUENCE_ID) {
        end(CallOutcome.APPLICATION_EXCEPTION, cause);
      } else if (cause instanceof TException && cause instanceof TBase) {
        end(CallOutcome.DECLARED_EXCEPTION, null);
      } else {
        end(failureOutcome(cause), cause);
      }
    }
  }
}
