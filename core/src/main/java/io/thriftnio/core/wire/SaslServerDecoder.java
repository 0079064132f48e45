package io.thriftnio.core.wire;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.wire.SaslMessage.Status;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * and once it completes the adapter decodes again and gets the answer ({@code ANSWER}: {@code OK}
 * or {@code COMPLETE}) or the refusal. Refusals ({@code BAD} for what the mechanism refused, {@code
 * ERROR} for the rest, as libthrift's server sends them) close the connection as {@link
 * CloseCause#SASL_FAILURE}. The negotiation's deadline is an {@code AWAIT} too, taken while the
 * decoder waits for the peer, so no adapter timer is involved.
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
        public Decoder newDecoder(WireSettings settings, Object peer) {
          if (settings.sasl() == null) {
            throw new IllegalStateException("SASL accepted without SASL settings: " + settings);
          }
          return new SaslServerDecoder(settings, peer);
        }
      };

  private final SaslSettings settings;
  private final ServerSasl sasl;
  private final WireSettings wire;
  private final Object peer;
  private final SaslEnvelope envelope;
  private final CompletableFuture<Void> deadline = new CompletableFuture<>();

  private String mechanism;
  private volatile SaslServer server;
  private CompletableFuture<byte[]> step;
  private boolean deadlineArmed;
  private boolean closed;

  /** After COMPLETE: the frames. Under auth, framed's decoder; {@code null} while negotiating. */
  private Decoder frames;

  private SaslServerDecoder(WireSettings wire, Object peer) {
    this.wire = wire;
    this.settings = wire.sasl();
    this.sasl = settings.sasl();
    this.peer = peer;
    this.envelope = new SaslEnvelope(peer);
    deadline.completeOnTimeout(null, sasl.negotiationTimeout().toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public Envelope envelope() {
    return envelope;
  }

  @Override
  public int decode(ByteSource in, int start, int available, Decoded out) {
    if (frames != null) {
      return frames.decode(in, start, available, out);
    }
    if (closed) {
      return out.needMore(); // refused, or ended: a late wake-up has nothing to do
    }
    CompletableFuture<byte[]> pending = step;
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

  /** A response of the peer: one step of the mechanism, off the IO thread. */
  private int respond(SaslMessage message, int consumed, Decoded out) {
    if (message.status() == Status.BAD || message.status() == Status.ERROR) {
      return fail(Status.ERROR, "the client failed: " + message.text(), out);
    }
    if (message.status() != Status.OK && message.status() != Status.COMPLETE) {
      return fail(Status.ERROR, "Expected COMPLETE or OK, got " + message.status(), out);
    }
    byte[] response = message.payload();
    String name = mechanism;
    try {
      step =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  SaslServer s = server;
                  if (s == null) {
                    s = sasl.newSaslServer(name);
                    server = s;
                  }
                  return s.evaluateResponse(response);
                } catch (SaslException e) {
                  throw new CompletionException(e);
                }
              },
              settings.steps());
    } catch (RejectedExecutionException e) {
      return fail(Status.ERROR, "server busy: too many SASL negotiations waiting", out);
    }
    return out.await(consumed, CompletableFuture.anyOf(step, deadline));
  }

  /** The step is done: its challenge goes back, or the negotiation fails. */
  private int answer(CompletableFuture<byte[]> done, Decoded out) {
    byte[] challenge;
    try {
      challenge = done.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return cause instanceof SaslException
          ? fail(Status.BAD, String.valueOf(cause.getMessage()), out)
          : fail(Status.ERROR, cause.toString(), out);
    }
    byte[] payload = challenge == null ? new byte[0] : challenge;
    SaslServer s = server;
    if (!s.isComplete()) {
      return out.answer(0, new SaslMessage(Status.OK, payload).encode(), false, false);
    }
    SaslQop qop;
    try {
      Object negotiated = s.getNegotiatedProperty(Sasl.QOP);
      qop = negotiated == null ? SaslQop.AUTH : SaslQop.of(String.valueOf(negotiated));
    } catch (RuntimeException e) {
      return fail(Status.ERROR, "no quality of protection: " + e, out);
    }
    if (!sasl.qop().contains(qop)) {
      return fail(Status.BAD, "quality of protection " + qop.saslName() + " not accepted", out);
    }
    envelope.complete(
        new SaslIdentity(mechanism, s.getAuthorizationID(), qop), qop.wraps() ? s : null);
    deadline.complete(null); // cancels its timer
    if (qop.wraps()) {
      frames = new WrappedFrames(s, wire.maxFrameSize(), peer, envelope);
    } else {
      frames =
          new FramedDecoder(
              wire.maxFrameSize(), wire.headerProtocol(), peer, envelope, wire.accepted());
      dispose(s); // nothing more to ask of it
    }
    return out.answer(0, new SaslMessage(Status.COMPLETE, payload).encode(), false, false);
  }

  /** Waiting for the peer's next message: the deadline wakes the adapter, once. */
  private int waitForPeer(Decoded out) {
    if (!deadlineArmed) {
      deadlineArmed = true;
      return out.await(0, deadline);
    }
    return out.needMore();
  }

  private int timedOut(Decoded out) {
    return fail(
        Status.ERROR,
        "negotiation not complete after "
            + sasl.negotiationTimeout().toMillis()
            + " ms (negotiationTimeout)",
        out);
  }

  /** Refuses the connection: {@code status} and {@code reason} go to the peer, then it closes. */
  private int fail(Status status, String reason, Decoded out) {
    String what = mechanism == null ? "SASL negotiation" : "SASL " + mechanism + " negotiation";
    Refusal refusal =
        Refusal.handshakeFailed(
            what + " from " + peer + " failed: " + reason + " (sent " + status + ")",
            SaslMessage.of(status, reason).encode(),
            CloseCause.SASL_FAILURE);
    // Before the refusal is set: closing completes the deadline, whose wake-up may decode at once.
    close();
    return out.refused(refusal);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    deadline.complete(null);
    CompletableFuture<byte[]> pending = step;
    if (pending != null) {
      pending.whenComplete((r, e) -> dispose(server)); // the step still uses it
    } else {
      dispose(server);
    }
  }

  private void dispose(SaslServer s) {
    if (s == null) {
      return;
    }
    try {
      s.dispose();
    } catch (SaslException e) {
      // Only the mechanism's own resources are at stake, and the connection is done with them.
      org.slf4j.LoggerFactory.getLogger(SaslServerDecoder.class)
          .debug("SASL {} context of {} not disposed: {}", mechanism, peer, e.toString());
    }
  }

  /** The frames after {@code auth-int} or {@code auth-conf}: each unwrapped into its message. */
  private static final class WrappedFrames implements Decoder {
    private final SaslServer server;
    private final int maxFrameSize;
    private final SocketAddress peer;
    private final SaslEnvelope envelope;

    WrappedFrames(SaslServer server, int maxFrameSize, Object peer, SaslEnvelope envelope) {
      this.server = server;
      this.maxFrameSize = maxFrameSize;
      this.peer = peer instanceof SocketAddress a ? a : null;
      this.envelope = envelope;
    }

    @Override
    public int decode(ByteSource in, int start, int available, Decoded out) {
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
        synchronized (server) { // wrap runs on the replying thread meanwhile
          message = server.unwrap(wrapped, 0, length);
        }
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
