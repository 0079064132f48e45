package io.thriftnio.core.internal.client;

import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.util.internal.Subjects;
import io.thriftnio.core.wire.SaslMessage;
import io.thriftnio.core.wire.SaslMessage.Status;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.thrift.transport.TTransportException;

/**
 * The client side of one connection's SASL negotiation, libthrift's {@code TSaslClientTransport}
 * protocol, for a connection whose bytes an IO adapter moves: the thread that opens the connection
 * runs {@link #negotiate()} (the mechanism may block: GSSAPI reaches the KDC), the reading thread
 * hands over each server message ({@link #onMessage}) and the connection's end ({@link #onEnded}).
 *
 * <pre>
 *  client                                   server
 *  START "GSSAPI", OK initial response  -&gt;
 *                                       &lt;-  OK challenge        (as many rounds as the mechanism
 *  OK response                          -&gt;                       needs)
 *                                       &lt;-  COMPLETE [last challenge]
 *                                       &lt;-  BAD / ERROR reason  (a refusal, then the server closes)
 * </pre>
 *
 * <p>Every wait is bounded by the negotiation timeout, counted from the first message sent. The
 * server answers each client message once, so at most two of its messages can be waiting (an answer
 * and a refusal); more is a broken peer, and the negotiation fails rather than queue them. Not part
 * of the API.
 */
public final class SaslHandshake {

  private static final byte[] EMPTY = new byte[0];

  private final ClientSasl sasl;
  private final SocketAddress peer;
  private final Consumer<ByteBuffer> send;
  // An answer, a refusal and the end: the server answers each client message once.
  private final BlockingQueue<Object> inbox = new ArrayBlockingQueue<>(3);
  private final AtomicBoolean ended = new AtomicBoolean();

  /** The connection ended before the negotiation did. */
  private static final class Ended {
    final Throwable cause;

    Ended(Throwable cause) {
      this.cause = cause;
    }
  }

  /**
   * @param sasl the mechanism and credentials
   * @param peer the server, for errors
   * @param send writes and flushes one negotiation message, from any thread
   */
  public SaslHandshake(ClientSasl sasl, SocketAddress peer, Consumer<ByteBuffer> send) {
    this.sasl = sasl;
    this.peer = peer;
    this.send = send;
  }

  /** A whole negotiation message from the server (status, length, payload); the reading thread. */
  public void onMessage(ByteBuffer whole) {
    // The decoder checked the status byte and the length.
    Status status = Status.of(whole.get(whole.position()));
    byte[] payload = new byte[whole.remaining() - SaslMessage.HEADER_SIZE];
    whole.position(whole.position() + SaslMessage.HEADER_SIZE).get(payload);
    SaslMessage message = new SaslMessage(status, payload);
    if (inbox.remainingCapacity() <= 1 || !inbox.offer(message)) {
      onEnded(new TTransportException("the server sent more negotiation messages than asked for"));
    }
  }

  /**
   * The connection ended: in order ({@code null}) or with {@code cause}. Only the first report
   * counts (an adapter may report one end twice); it queues behind the messages that came before
   * it, so a refusal is read before the close that follows it.
   */
  public void onEnded(Throwable cause) {
    if (ended.compareAndSet(false, true)) {
      // Room is kept for it: onMessage never fills the last slot.
      inbox.offer(new Ended(cause));
    }
  }

  /**
   * Runs the negotiation on the calling thread until the server's {@code COMPLETE}.
   *
   * @return the mechanism's client, complete: its negotiated quality of protection says whether
   *     frames are wrapped
   * @throws SaslNegotiationException if the server refused, the mechanism failed, the server does
   *     not speak SASL, the connection ended or the negotiation timeout passed; the caller closes
   *     the connection
   */
  public SaslClient negotiate() throws SaslNegotiationException {
    long deadline = System.nanoTime() + sasl.negotiationTimeout().toNanos();
    SaslClient client;
    try {
      client = sasl.newSaslClient();
    } catch (SaslException e) {
      throw failed("the mechanism is not available: " + e.getMessage(), e);
    }
    boolean done = false;
    try {
      byte[] initial = client.hasInitialResponse() ? step(client, EMPTY) : EMPTY;
      send(SaslMessage.of(Status.START, sasl.mechanism()));
      send(new SaslMessage(client.isComplete() ? Status.COMPLETE : Status.OK, initial));
      SaslMessage last = null;
      while (!client.isComplete()) {
        last = receive(deadline);
        byte[] response = step(client, last.payload());
        if (last.status() == Status.COMPLETE) {
          if (!client.isComplete()) {
            throw failed("the server completed before the mechanism did", null);
          }
          break;
        }
        send(new SaslMessage(client.isComplete() ? Status.COMPLETE : Status.OK, response));
      }
      if (last == null || last.status() == Status.OK) {
        last = receive(deadline); // the mechanism is done; the server's COMPLETE is still owed
        if (last.status() != Status.COMPLETE) {
          throw failed("expected COMPLETE, the server sent " + last.status(), null);
        }
      }
      done = true;
      return client;
    } finally {
      if (!done) {
        disposeQuietly(client);
      }
    }
  }

  private byte[] step(SaslClient client, byte[] challenge) throws SaslNegotiationException {
    try {
      byte[] response =
          Subjects.call(sasl.subject().orElse(null), () -> client.evaluateChallenge(challenge));
      return response == null ? EMPTY : response;
    } catch (Exception e) {
      throw mechanismFailed(e);
    }
  }

  private SaslNegotiationException mechanismFailed(Exception e) {
    // Tell the server why, as TSaslClientTransport does, so that its log says it too.
    String reason = String.valueOf(e.getMessage());
    send(SaslMessage.of(Status.BAD, reason));
    return failed("the mechanism failed: " + reason, e);
  }

  private void send(SaslMessage message) {
    send.accept(message.encode());
  }

  private SaslMessage receive(long deadline) throws SaslNegotiationException {
    Object next;
    try {
      next = inbox.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed("interrupted", e);
    }
    if (next == null) {
      throw failed(
          "no answer within "
              + sasl.negotiationTimeout()
              + " (negotiationTimeout); the server may not accept SASL",
          null);
    }
    if (next instanceof Ended) {
      Throwable cause = ((Ended) next).cause;
      if (cause instanceof SaslNegotiationException) {
        throw (SaslNegotiationException) cause;
      }
      throw failed(
          cause == null
              ? "the server closed the connection during the negotiation; it may not accept SASL"
                  + " (a framed-only server closes on the START message)"
              : "the connection failed during the negotiation: " + ClientErrors.describe(cause),
          cause);
    }
    SaslMessage message = (SaslMessage) next;
    if (message.status() == Status.BAD || message.status() == Status.ERROR) {
      throw failed(message.text(), null);
    }
    if (message.status() != Status.OK && message.status() != Status.COMPLETE) {
      throw failed("expected OK or COMPLETE, the server sent " + message.status(), null);
    }
    return message;
  }

  private SaslNegotiationException failed(String reason, Throwable cause) {
    return new SaslNegotiationException(sasl.mechanism(), peer, reason, cause);
  }

  private static void disposeQuietly(SaslClient client) {
    try {
      client.dispose();
    } catch (SaslException e) {
      // The negotiation failed already and the connection closes; the mechanism's own state is
      // released with it.
    }
  }
}
