package io.thriftnio.grizzly;

import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ReadActivity;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.internal.server.ServerConnection;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.Envelope;
import io.thriftnio.core.wire.Refusal;
import io.thriftnio.core.wire.ServerCodec;
import io.thriftnio.core.wire.WireSettings;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.IOEvent;
import org.glassfish.grizzly.Transport.State;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.nio.SelectorRunner;
import org.glassfish.grizzly.ssl.SSLUtils;

/**
 * One Grizzly server connection as core's call path sees it ({@link ServerConnection}), and the
 * state a server keeps per connection, in one connection attribute of {@link ThriftServerFilter}:
 * its calls, its wire ({@link ServerCodec}, which {@link ThriftFrameFilter} reads with), its read
 * clock (which the timeout sweep commits an idle close against). Grizzly's writes are thread-safe,
 * so replies are written on whichever thread completes them; those of one batch leave in one write.
 */
final class GrizzlyServerConnection implements ServerConnection {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(GrizzlyServerConnection.class);

  /**
   * How long a connection that was sent an error reply stays half-closed, its input read and
   * discarded, before it is closed: closing with unread input sends a reset, which can destroy the
   * reply before the peer reads it. The same as the Netty server's.
   */
  static final long LINGER_MILLIS = 1000;

  // Runs the close on the JDK's delay thread: a non-blocking hand-over to the selector.
  private static final Executor AFTER_LINGER =
      CompletableFuture.delayedExecutor(LINGER_MILLIS, TimeUnit.MILLISECONDS, Runnable::run);

  final Connection<?> connection;
  final CallSequencer calls;

  /**
   * The read clock: a read begins in {@link ThriftFrameFilter}, and ends there unless a request is
   * passed on, in which case {@link ThriftServerFilter} ends it once the request is with the call
   * path. The idle sweep commits its decision against it.
   */
  final ReadActivity reads = new ReadActivity();

  /** The current read passed a request on; confined to the reading thread. */
  boolean passedOn;

  /** Another whole request follows the one being delivered, in the same read. */
  volatile boolean moreBuffered;

  /** The bytes of the current read as the wire reads them; confined to the reading thread. */
  final GrizzlyBytes bytes = new GrizzlyBytes();

  /**
   * The connection's wire, made at its first read; confined to the reading thread but for the
   * clocks it exposes.
   */
  private volatile ServerCodec codec;

  /**
   * Guards the wire ({@link #codec}) while the connection handshakes (a SASL negotiation): a read
   * of bytes and a wake-up of the handshake (a step done, the deadline) may decode on different
   * threads (under {@code WORKER} the read runs on a worker, the wake-up on the selector thread; a
   * deadline's wake-up meets a read of bytes the peer sent meanwhile). Only decoding runs under it:
   * what the wire asks for (an answer, a refusal and its close, starting a step on the
   * application's executor) is done once it is left, and the mechanism is asked nothing under it.
   * Private to this adapter; never held with another lock.
   */
  final Object handshake = new Object();

  /** Replies written and not yet flushed; owned by the sequencer's writer. */
  private final List<Buffer> unflushed = new ArrayList<>(4);

  /** Held while read interest is set, so that two syncs apply their states in order. */
  private final Object readInterest = new Object();

  /**
   * Whether read interest is on, as last set; written under {@link #readInterest}, read without it.
   */
  private volatile boolean reading = true;

  private final CallPath path;

  /** Its registration in the server's registry; {@code null} in a user's own filter chain. */
  private final RegisteredConnection<?> registration;

  /** The selector thread that reads this connection; {@code null} if not an NIO connection. */
  private final SelectorRunner selector;

  GrizzlyServerConnection(Connection<?> connection, CallPath path) {
    this.connection = connection;
    this.path = path;
    this.selector =
        connection instanceof NIOConnection
            ? ((NIOConnection) connection).getSelectorRunner()
            : null;
    this.registration = ConnectionGuardFilter.registered(connection); // admitted at accept
    this.calls = path.open(this);
  }

  /** The connection's wire, made on first use with the frame filter's {@code settings}. */
  ServerCodec codec(WireSettings settings) {
    ServerCodec c = codec;
    if (c == null) {
      boolean probe = registration != null && registration.probeOnly();
      c = new ServerCodec(probe ? settings.forProbes() : settings, remoteAddress());
      codec = c;
    }
    return c;
  }

  /** The connection's wire, or {@code null} before its first read. */
  ServerCodec codec() {
    return codec;
  }

  /** The envelope of the connection's requests that carry none of their own: framed by default. */
  Envelope envelope() {
    ServerCodec c = codec;
    Envelope e = c == null ? null : c.envelope();
    return e == null ? Envelope.FRAMED : e;
  }

  /** The wire refused the connection's bytes: answer as the refusal says, then close. */
  void refused(Refusal refusal) {
    ByteBuffer answer = refusal.answer();
    if (refusal.closeCause() != null) {
      calls.onHandshakeFailure(answer, refusal.closeCause());
      calls.readComplete(); // nothing of this read reaches the server filter: flush it now
    } else if (answer != null) {
      answer(answer, true, true);
    } else {
      calls.onBadFrame(refusal.header(), refusal.reason(), refusal.envelope());
    }
  }

  /** Bytes to send without a call, after every earlier reply; then closes if {@code closeAfter}. */
  void answer(ByteBuffer answer, boolean refusal, boolean closeAfter) {
    calls.onAnswer(answer, refusal, closeAfter);
    calls.readComplete(); // no request of this read reaches the server filter: flush it now
  }

  /**
   * Makes the connection's read interest follow the call path ({@link
   * CallSequencer#isReadingPaused()}), as Netty's auto-read does: while paused, the whole frames
   * already read still reach the call path, which keeps them undispatched. Called after every
   * request delivered and on every resume, so the last call sees the latest state; not a suspended
   * filter chain, which, resumed off the selector thread, was not always read again.
   */
  void syncReading() {
    boolean failed;
    synchronized (readInterest) {
      boolean on = !calls.isReadingPaused();
      if (on == reading) {
        return;
      }
      reading = on;
      failed = !setReading(on); // under the lock: two syncs apply their states in order
    }
    if (failed) {
      // The connection closed meanwhile: there is nothing left to read. Closed outside the
      // monitor, since Grizzly runs the close listeners (the connection listeners) right here.
      connection.closeSilently();
    }
  }

  /** Whether read interest is off, as last set. */
  boolean isPausedByUs() {
    return !reading;
  }

  @Override
  public void resumeReading() {
    syncReading();
  }

  /**
   * Whether the read interest is set; {@code false} if the connection failed (closed meanwhile).
   */
  private boolean setReading(boolean on) {
    try {
      if (on) {
        connection.enableIOEvent(IOEvent.READ);
      } else {
        connection.disableIOEvent(IOEvent.READ);
      }
      return true;
    } catch (IOException closed) {
      return false;
    }
  }

  @Override
  public void write(ByteBuffer head, ByteBuffer body) {
    MemoryManager<?> memory = connection.getMemoryManager();
    if (head != null) {
      unflushed.add(Buffers.wrap(memory, head));
    }
    if (body != null) {
      unflushed.add(Buffers.wrap(memory, body));
    }
  }

  @Override
  public void flush() {
    flush(null);
  }

  private void flush(CompletionHandler<WriteResult<?, ?>> then) {
    int replies = unflushed.size();
    if (replies == 0) {
      if (then != null) {
        then.completed(null);
      }
      return;
    }
    Buffer batch;
    if (replies == 1) {
      batch = unflushed.get(0);
    } else {
      MemoryManager<?> memory = connection.getMemoryManager();
      batch = CompositeBuffer.newBuffer(memory, unflushed.toArray(new Buffer[0]));
    }
    unflushed.clear();
    writeCounted(batch, replies, then);
  }

  /** Writes {@code batch}; if it cannot be written (the peer reset meanwhile), counts it. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private void writeCounted(Buffer batch, int replies, CompletionHandler<WriteResult<?, ?>> then) {
    ServerCounters counters = path.counters();
    CompletionHandler<WriteResult<?, ?>> handler =
        new EmptyCompletionHandler<WriteResult<?, ?>>() {
          @Override
          public void completed(WriteResult<?, ?> result) {
            if (then != null) {
              then.completed(result);
            }
          }

          @Override
          public void failed(Throwable cause) {
            counters.droppedResponses.add(replies);
            if (then != null) {
              then.failed(cause);
            }
          }

          @Override
          public void cancelled() {
            counters.droppedResponses.add(replies);
            if (then != null) {
              then.cancelled();
            }
          }
        };
    try {
      ((Connection) connection).write(batch, (CompletionHandler) handler);
    } catch (RuntimeException refused) {
      // The write queue refused it (above its limit, or closed): the replies are lost, and so is
      // the connection's order; close it rather than leave its caller waiting.
      log.warn(
          "Closing connection from {}: {} replies could not be queued ({})",
          connection.getPeerAddress(),
          replies,
          refused.toString());
      handler.failed(refused);
      connection.closeSilently();
    }
  }

  /**
   * Grizzly's write queue takes writes from any thread. Calls run on a worker executor ({@code
   * WORKER}) still hand their replies to the connection's selector thread whenever other replies
   * are pending, so that the selector writes every reply that is ready with one system call instead
   * of each worker writing its own; elsewhere the completing thread writes.
   */
  @Override
  public boolean inIoThread() {
    return !path.runsOnWorkers()
        || selector == null
        || Thread.currentThread() == selector.getRunnerThread();
  }

  @Override
  public boolean writesFromAnyThread() {
    return true;
  }

  @Override
  public void execute(Runnable task) {
    if (selector == null || selector.getState() != State.STARTED) {
      task.run(); // the selector is gone with its connections: the writes fail and are counted
      return;
    }
    selector
        .getTransport()
        .getSelectorHandler()
        .execute(
            selector,
            () -> {
              task.run();
              return true;
            },
            null);
  }

  @Override
  public void release(Object request) {} // Grizzly's read buffers are not pooled: the GC frees them

  @Override
  public void close(boolean halfCloseFirst) {
    if (registration != null) {
      registration.noteClosedAfterReplies(); // a bad request, or the end of a drain
    }
    if (!halfCloseFirst) {
      flush();
      connection.closeSilently(); // after the responses already queued
      return;
    }
    flush(
        new EmptyCompletionHandler<WriteResult<?, ?>>() {
          @Override
          public void completed(WriteResult<?, ?> result) {
            shutdownOutputThenClose(connection);
          }

          @Override
          public void failed(Throwable cause) {
            connection.closeSilently();
          }

          @Override
          public void cancelled() {
            connection.closeSilently();
          }
        });
  }

  @Override
  public boolean hasBufferedRequests() {
    // ThriftFrameFilter hands over one request at a time; the rest of the read waits in the chain.
    return moreBuffered;
  }

  @Override
  public void allAnswered() {} // the timeout sweep reads the sequencer's lastActivityNanos

  @Override
  public SaslIdentity saslIdentity() {
    ServerCodec c = codec; // set once, at the first read
    return c == null ? null : c.saslIdentity();
  }

  @Override
  public RegisteredConnection<?> registration() {
    return registration;
  }

  @Override
  public SocketAddress remoteAddress() {
    return Addresses.peer(connection);
  }

  @Override
  public SocketAddress localAddress() {
    return Addresses.local(connection);
  }

  @Override
  public SSLSession tlsSession() {
    // Set on the connection by whichever SSLFilter serves it: the server's, or a user's own chain.
    SSLEngine engine = SSLUtils.getSSLEngine(connection);
    return engine == null ? null : engine.getSession();
  }

  /**
   * Sends FIN now and closes after {@link #LINGER_MILLIS}, or sooner when the peer closes; the wire
   * discards what arrives meanwhile.
   */
  private static void shutdownOutputThenClose(Connection<?> connection) {
    Object channel =
        connection instanceof NIOConnection ? ((NIOConnection) connection).getChannel() : null;
    if (!(channel instanceof SocketChannel)) {
      connection.closeSilently();
      return;
    }
    try {
      ((SocketChannel) channel).shutdownOutput();
    } catch (IOException e) {
      // Closed meanwhile (the peer went away): nothing is left to shut down.
      connection.closeSilently();
      return;
    }
    AFTER_LINGER.execute(connection::terminateSilently);
  }
}
