package io.thriftnio.core.wire;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.wire.SaslMessage.Status;
import java.net.SocketAddress;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

/**
 * The server side of libthrift's SASL transport, for one connection: the negotiation, then the
 * frames, unwrapped under {@code auth-int} and {@code auth-conf}.
 *
 * <pre>
 * client                                         server
 * START "DIGEST-MD5"  +  OK initial response  -&gt;   (both read, then one step)
 *                                             &lt;-   OK challenge        (a step: evaluateResponse)
 * OK response                                 -&gt;
 *                                             &lt;-   COMPLETE last challenge
 * | length | message or wrapped |             -&gt;   MESSAGE (unwrapped into an array of its own)
 * </pre>
 *
 * <p>Each step (making the {@code SaslServer}, {@code evaluateResponse}) runs on {@link
 * SaslSettings#steps()}: the decoder consumes the message and returns {@code AWAIT} with the step,
 * which the adapter starts once it holds no lock (the executor may be the application's, and may
 * run the step on the calling thread), and once it completes the adapter decodes again and gets the
 * answer ({@code ANSWER}: {@code OK} or {@code COMPLETE}) or the refusal. Refusals close the
 * connection as {@link CloseCause#SASL_FAILURE}; the peer, not authenticated, is told the library's
 * words only: {@code BAD} {@value #AUTHENTICATION_FAILED} for what the mechanism refused ({@code
 * SaslException}), {@code ERROR} {@value #INTERNAL_ERROR} for the server's own failure (an
 * authenticator threw), or the rule of the negotiation it broke. The detail goes to the log with
 * the peer ({@link Refusal#fault()} sets the level). The negotiation's deadline is an {@code AWAIT}
 * too, taken while the decoder waits for the peer, so no adapter timer is involved.
 *
 * <p>Threads: {@code decode} on the reading thread, one call at a time; the steps on the executor;
 * {@link #close()} on any thread, meanwhile. What they share is the {@link SaslSession} (the
 * mechanism, disposed once nothing uses it), the deadline (a future) and {@code closed} (volatile);
 * the rest is the reading thread's. The reading thread asks nothing of the mechanism while it
 * negotiates (the steps read what they found off it), and never calls the executor: an adapter may
 * decode under a lock of its own, and both may be the application's code.
 *
 * <p>Limits: a negotiation message's declared length above {@code maxNegotiationMessageSize} is
 * refused before anything is allocated; a frame's declared (wrapped) length above {@code
 * maxFrameSize} likewise, and an unwrapped message above it after unwrapping. No frame is delivered
 * before {@code COMPLETE}. A client sends nothing while it waits for the server's answer; bytes it
 * sends anyway are read when more arrive (Grizzly) or at once (Netty).
 */
final class SaslServerDecoder implements Decoder {

  /** SASL's wire kind: a connection whose first byte is {@code START} (01). */
  static final WireFormat KIND =
      new WireFormat("SASL", WireKind.SASL) {
        @Override
        public int detect(ByteSource in, int start, int available) {
          return in.getByte(start) == Status.START.code() ? YES : NO;
        }

        @Override
        public String looksLike() {
          return "a SASL negotiation (START)";
        }

        @Override
        public Decoder newDecoder(WireSettings settings, SocketAddress peer) {
          if (settings.sasl() == null) {
            throw new IllegalStateException("SASL accepted without SASL settings: " + settings);
          }
          return new SaslServerDecoder(settings, peer);
        }
      };

  /** What a peer is told when the mechanism refused its credential: nothing more. */
  static final String AUTHENTICATION_FAILED = "authentication failed";

  /** What a peer is told when the server failed (an authenticator threw): nothing more. */
  static final String INTERNAL_ERROR = "internal error";

  private final SaslSettings settings;
  private final ServerSasl sasl;
  private final WireSettings wire;
  private final SocketAddress peer;
  private final SaslEnvelope envelope;
  private final SaslSession session;
  private final CompletableFuture<Void> deadline = new CompletableFuture<>();

  // Confined to the reading thread: decode runs there, one call at a time (Decoder's contract).
  private String mechanism;
  private CompletableFuture<Stepped> step;
  private boolean deadlineArmed;

  /** After COMPLETE: the frames. Under auth, framed's decoder; {@code null} while negotiating. */
  private Decoder frames;

  /** Set once, by a refusal on the reading thread or by {@link #close()} on any thread. */
  private volatile boolean closed;

  private SaslServerDecoder(WireSettings wire, SocketAddress peer) {
    this.wire = wire;
    this.settings = wire.sasl();
    this.sasl = settings.sasl();
    this.peer = peer;
    this.envelope = new SaslEnvelope(peer);
    this.session = new SaslSession(peer);
    deadline.completeOnTimeout(null, sasl.negotiationTimeout().toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public Envelope envelope() {
    return envelope;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    if (frames != null) {
      return frames.decode(in, start, available, out);
    }
    if (closed) {
      return out.needMore(); // refused, or ended: a late wake-up has nothing to do
    }
    CompletableFuture<Stepped> pending = step;
    if (pending != null) {
      if (!pending.isDone()) {
        return deadline.isDone() ? timedOut(out) : out.needMore();
      }
      step = null;
      return answer(pending, out);
    }
    if (deadline.isDone()) {
      return timedOut(out);
    }
    int max = sasl.maxNegotiationMessageSize();
    SaslMessage first;
    SaslMessage response;
    try {
      first = SaslMessage.read(in, start, available, max);
      if (first == null) {
        return waitForPeer(out);
      }
      if (mechanism != null) {
        return respond(first, first.payload().length + SaslMessage.HEADER_SIZE, out);
      }
      if (first.status() != Status.START) {
        return fail(Status.ERROR, "Expecting START status, received " + first.status(), out);
      }
      String name = first.text();
      if (!sasl.mechanisms().contains(name)) {
        mechanism = name;
        return fail(Status.BAD, "Unsupported mechanism type " + name, out);
      }
      // START and the initial response make one step: read both before taking either.
      int startSize = SaslMessage.HEADER_SIZE + first.payload().length;
      response = SaslMessage.read(in, start + startSize, available - startSize, max);
      if (response == null) {
        return waitForPeer(out);
      }
      mechanism = name;
      return respond(
          response, startSize + SaslMessage.HEADER_SIZE + response.payload().length, out);
    } catch (IllegalArgumentException e) {
      return fail(Status.ERROR, e.getMessage(), out); // a bad status byte, a length over the limit
    }
  }

  /**
   * A response of the peer: one step of the mechanism, off the IO thread. The decoder does not
   * submit it: the adapter runs {@link Decoded#step()} once it holds no lock, since the executor
   * may be the application's (issue 38). A submission refused ({@link RejectedExecutionException})
   * completes the step with that exception, and the wake-up answers "server busy".
   */
  private WireEvent respond(SaslMessage message, int consumed, Decoded out) {
    if (message.status() == Status.BAD || message.status() == Status.ERROR) {
      return fail(Status.ERROR, "the client failed: " + message.text(), out);
    }
    if (message.status() != Status.OK && message.status() != Status.COMPLETE) {
      return fail(Status.ERROR, "Expected COMPLETE or OK, got " + message.status(), out);
    }
    byte[] response = message.payload();
    String name = mechanism;
    Executor steps = settings.steps();
    CompletableFuture<Stepped> running = new CompletableFuture<>();
    Runnable submit =
        () -> {
          try {
            steps.execute(() -> evaluate(name, response, running));
          } catch (RejectedExecutionException e) {
            running.completeExceptionally(e);
          }
        };
    step = running;
    return out.await(consumed, CompletableFuture.anyOf(running, deadline), submit);
  }

  /**
   * What a step found, read off the mechanism on the executor: the reading thread (which may hold
   * its adapter's lock) asks nothing of the mechanism during the negotiation.
   *
   * @param qop once complete, what was negotiated; {@code null} before
   */
  private record Stepped(byte[] challenge, boolean complete, SaslQop qop, String authorizationId) {}

  /**
   * One step, on the negotiation executor, within a use of the session that ends before the step
   * counts as done (a close meanwhile disposes the mechanism after it). A mechanism that will not
   * be asked anything more (it failed, it completed under {@code auth}, or its QOP is refused) is
   * closed here, so it is disposed on this thread when the use ends.
   */
  private void evaluate(String name, byte[] response, CompletableFuture<Stepped> running) {
    if (!session.begin()) {
      running.cancel(false); // closed meanwhile: the mechanism is not touched
      return;
    }
    Stepped done;
    try {
      SaslServer s = session.server();
      if (s == null) {
        s = sasl.newSaslServer(name);
        session.made(s);
      }
      byte[] challenge = s.evaluateResponse(response);
      if (!s.isComplete()) {
        done = new Stepped(challenge, false, null, null);
      } else {
        Object negotiated = s.getNegotiatedProperty(Sasl.QOP);
        SaslQop qop = negotiated == null ? SaslQop.AUTH : SaslQop.of(String.valueOf(negotiated));
        done = new Stepped(challenge, true, qop, s.getAuthorizationID());
        if (!qop.wraps() || !sasl.qop().contains(qop)) {
          session.close(); // nothing more to ask of it: disposed once this use ends
        }
      }
    } catch (SaslException | RuntimeException | Error e) {
      session.close();
      session.end();
      running.completeExceptionally(e);
      return;
    }
    session.end();
    running.complete(done);
  }

  /** The step is done: its challenge goes back, or the negotiation fails. */
  private WireEvent answer(CompletableFuture<Stepped> finished, Decoded out) {
    Stepped done;
    try {
      done = finished.join();
    } catch (CompletionException | CancellationException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof RejectedExecutionException) {
        return fail(Status.ERROR, "server busy: too many SASL negotiations waiting", out);
      }
      return cause instanceof SaslException
          ? refuseCredential(cause, out)
          : failInternally("the step failed: " + cause, cause, out);
    }
    byte[] payload = done.challenge() == null ? new byte[0] : done.challenge();
    if (!done.complete()) {
      return out.answer(0, new SaslMessage(Status.OK, payload).encode(), false, false);
    }
    SaslQop qop = done.qop();
    if (!sasl.qop().contains(qop)) {
      return fail(Status.BAD, "quality of protection " + qop.saslName() + " not accepted", out);
    }
    envelope.complete(
        new SaslIdentity(mechanism, done.authorizationId(), qop), qop.wraps() ? session : null);
    deadline.complete(null); // cancels its timer
    if (qop.wraps()) {
      frames = new WrappedFrames(session, wire.maxFrameSize(), peer, envelope);
    } else {
      frames =
          new FramedDecoder(
              wire.maxFrameSize(), wire.headerProtocol(), peer, envelope, wire.accepted());
    }
    return out.answer(0, new SaslMessage(Status.COMPLETE, payload).encode(), false, false);
  }

  /** Waiting for the peer's next message: the deadline wakes the adapter, once. */
  private WireEvent waitForPeer(Decoded out) {
    if (!deadlineArmed) {
      deadlineArmed = true;
      return out.await(0, deadline);
    }
    return out.needMore();
  }

  private WireEvent timedOut(Decoded out) {
    return fail(
        Status.ERROR,
        "negotiation not complete after "
            + sasl.negotiationTimeout().toMillis()
            + " ms (negotiationTimeout)",
        out);
  }

  /**
   * The mechanism refused the peer's credential ({@code SaslException}): the peer is told {@value
   * #AUTHENTICATION_FAILED}, {@code BAD}, and the log why.
   */
  private WireEvent refuseCredential(Throwable why, Decoded out) {
    return refuse(
        Status.BAD, AUTHENTICATION_FAILED, why.toString(), Refusal.Fault.CREDENTIAL, null, out);
  }

  /**
   * The server failed (an authenticator threw, the mechanism broke): the peer is told {@value
   * #INTERNAL_ERROR}, {@code ERROR}, and the log what happened.
   */
  private WireEvent failInternally(String detail, Throwable error, Decoded out) {
    return refuse(Status.ERROR, INTERNAL_ERROR, detail, Refusal.Fault.SERVER, error, out);
  }

  /**
   * Refuses the connection for breaking the negotiation's rules: {@code status} and {@code reason},
   * the library's own words on what the peer sent, go to the peer and the log; then it closes.
   */
  private WireEvent fail(Status status, String reason, Decoded out) {
    return refuse(status, reason, reason, Refusal.Fault.PEER, null, out);
  }

  /**
   * Refuses the connection: {@code status} and {@code told} go to the peer, {@code detail} to the
   * log, with the peer's address; then it closes.
   */
  private WireEvent refuse(
      Status status,
      String told,
      String detail,
      Refusal.Fault fault,
      Throwable error,
      Decoded out) {
    String what = mechanism == null ? "SASL negotiation" : "SASL " + mechanism + " negotiation";
    String sent = told.equals(detail) ? status.toString() : status + " \"" + told + "\"";
    Refusal refusal =
        Refusal.handshakeFailed(
            what + " from " + peer + " failed: " + detail + " (sent " + sent + ")",
            SaslMessage.of(status, told).encode(),
            CloseCause.SASL_FAILURE,
            fault,
            error);
    // Before the refusal is set: the deadline completes, and its wake-up may decode at once. The
    // mechanism is not disposed here, where the adapter may hold its lock: a failed step closed it
    // on the executor, and the adapter's close of the connection ends the rest (close()).
    closed = true;
    deadline.complete(null);
    return out.refused(refusal);
  }

  @Override
  public void close() {
    closed = true;
    deadline.complete(null);
    session.close(); // disposes the mechanism now, or once a step or a wrap using it ends
  }

  /** The frames after {@code auth-int} or {@code auth-conf}: each unwrapped into its message. */
  private static final class WrappedFrames implements Decoder {
    private final SaslSession session;
    private final int maxFrameSize;
    private final SocketAddress peer;
    private final SaslEnvelope envelope;

    WrappedFrames(
        SaslSession session, int maxFrameSize, SocketAddress peer, SaslEnvelope envelope) {
      this.session = session;
      this.maxFrameSize = maxFrameSize;
      this.peer = peer;
      this.envelope = envelope;
    }

    @Override
    public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
      if (available < Framing.HEADER_SIZE) {
        return out.needMore();
      }
      int length = in.getInt(start);
      if (length <= 0 || length > maxFrameSize) {
        return out.refused(
            Refusal.frameSize(new FrameSizeException(length, maxFrameSize, peer), null));
      }
      if (available - Framing.HEADER_SIZE < length) {
        return out.needMore();
      }
      byte[] wrapped = new byte[length];
      in.getBytes(start + Framing.HEADER_SIZE, wrapped, 0, length);
      byte[] message;
      try {
        message = session.unwrap(wrapped, 0, length); // one at a time with the replies' wrap
      } catch (SaslException | RuntimeException e) {
        return out.refused(
            Refusal.of(
                "SASL frame of "
                    + length
                    + " bytes from "
                    + peer
                    + " does not unwrap under "
                    + envelope.saslIdentity().qop().saslName()
                    + ": "
                    + e.getMessage(),
                null,
                null));
      }
      if (message.length == 0 || message.length > maxFrameSize) {
        return out.refused(
            Refusal.frameSize(new FrameSizeException(message.length, maxFrameSize, peer), null));
      }
      return out.message(Framing.HEADER_SIZE + length, message, envelope);
    }
  }
}
