package io.thriftnio.core.internal.server;

import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.util.internal.CallConnection;
import java.nio.ByteBuffer;

/**
 * One server connection as the call path sees it: what an IO adapter (Netty's {@code
 * ThriftServerHandler}, Grizzly's {@code ThriftServerFilter}, an in-memory connection in tests)
 * implements, and all that {@link CallSequencer} asks of it; the addresses and TLS session the call
 * context reads come from {@link CallConnection}. Not part of the API.
 *
 * <p>Threads: {@link #write}, {@link #flush}, {@link #close} and {@link #allAnswered} are called by
 * one thread at a time, in reply order, and only on a thread where {@link #inIoThread()} is true;
 * other threads hand their writes over with {@link #execute}, once per batch of replies. {@link
 * #release} and {@link #resumeReading} may be called on any thread. None is called while the
 * sequencer holds its lock.
 */
public interface ServerConnection extends CallConnection<SaslIdentity> {

  /**
   * Queues one reply for sending, as its envelope made it ({@link
   * io.thriftnio.core.wire.Envelope#encode}): {@code head}, then {@code body}, in one write;
   * nothing need leave before {@link #flush()}.
   *
   * @param head bytes before the body (an HTTP head, a whole answer), or {@code null}
   * @param body the body, from position to limit (often the reply frame itself, with or without its
   *     length prefix), or {@code null}; the adapter may keep both until they are written
   */
  void write(ByteBuffer head, ByteBuffer body);

  /** Sends every reply queued by {@link #write}. */
  void flush();

  /** Whether the current thread may call {@link #write} and the other IO methods. */
  boolean inIoThread();

  /**
   * Whether a thread where {@link #inIoThread()} is false may write a reply itself when it is the
   * only reply pending on the connection, instead of handing it over with {@link #execute}: true
   * for an adapter whose writes are thread-safe and cost no more off the IO thread (Grizzly's write
   * queue). Replies completed while others are pending are still handed over, so that the IO thread
   * writes them in one go, except while the server's calls compute (its run gate bounded), when
   * replies come too far apart to share a write. Read once, when the sequencer is created.
   */
  default boolean writesFromAnyThread() {
    return false;
  }

  /**
   * Whether {@link #execute}, called on the IO thread, runs its task after the IO thread's current
   * pass over its ready connections (Netty's event loop runs its tasks after its IO), so that a
   * task handed over once per pass can collect the pass's calls ({@code WorkerHandOff}). Read once,
   * when the sequencer is created. Default: {@code false}.
   */
  default boolean runsTasksAfterEachPass() {
    return false;
  }

  /**
   * Runs {@code task} on a thread where {@link #inIoThread()} is true, after the tasks handed over
   * before it. If the IO thread is gone, runs it on the calling thread: the connection is closed
   * then, and its writes fail (and are counted as dropped) rather than being lost unseen.
   */
  void execute(Runnable task);

  /**
   * Reading may go on: the sequencer has room for requests again after {@link
   * CallSequencer#onRequest} returned {@code false}. Called once for each such pause, possibly
   * before the adapter has acted on the pause; the adapter must then not pause.
   */
  void resumeReading();

  /**
   * Releases a request given to {@link CallSequencer#onRequest}: its call no longer reads it.
   *
   * @param request the adapter's own handle (a pooled buffer, say), as given
   */
  void release(Object request);

  /**
   * Flushes what was written and closes the connection once it has been sent.
   *
   * @param halfCloseFirst after an error reply: shut the output down once the reply has been sent,
   *     keep reading (and discarding) for a moment, then close; closing with unread input would
   *     send a reset, which can destroy the reply before the peer reads it
   */
  void close(boolean halfCloseFirst);

  /**
   * Whether whole requests already read from the peer wait to be delivered: a drain answers them
   * before it closes the connection. An adapter whose decoder delivers every whole request of a
   * read at once returns {@code false}.
   */
  boolean hasBufferedRequests();

  /** Every request received so far has been answered (the idle clock may start). */
  void allAnswered();

  /**
   * The connection's registration in its server's {@link ConnectionRegistry}, for the connection
   * listeners' per-call event; {@code null} (the default) for a connection outside a server (a
   * user's own pipeline or filter chain).
   */
  default RegisteredConnection<?> registration() {
    return null;
  }
}
