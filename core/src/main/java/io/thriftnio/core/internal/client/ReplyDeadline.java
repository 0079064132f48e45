package io.thriftnio.core.internal.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * {@code callTimeout} as a deadline for a whole reply on a blocking socket, the rule of every sync
 * transport: {@link #start} when a reply is awaited, then before each blocking read {@link
 * #beforeRead} sets the socket's read timeout to what is left of it, so a peer that trickles its
 * reply a byte at a time cannot hold a call past its {@code callTimeout} (a read timeout alone
 * restarts with every byte). Confined to the thread making the call, as the transport is. Not part
 * of the API.
 */
public final class ReplyDeadline {
  private final Socket socket;
  private final long timeoutNanos;
  private long deadline;
  private boolean started;

  /**
   * @param socket the connected socket whose reads are bounded
   * @param timeoutMillis the {@code callTimeout}, {@code > 0}
   */
  public ReplyDeadline(Socket socket, long timeoutMillis) {
    this.socket = socket;
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
  }

  /** The {@code callTimeout}, in milliseconds, as messages name it. */
  public long timeoutMillis() {
    return TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
  }

  /** Starts the deadline of the reply now awaited. */
  public void start() {
    deadline = System.nanoTime() + timeoutNanos;
    started = true;
  }

  /**
   * Sets the socket's read timeout to what is left of the deadline (at least 1 ms); with no
   * deadline started, leaves it as it is.
   *
   * @throws SocketTimeoutException when the deadline has passed
   * @throws IOException when the socket's timeout cannot be set (it is closed)
   */
  public void beforeRead() throws IOException {
    if (!started) {
      return;
    }
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new SocketTimeoutException("the reply did not complete within its deadline");
    }
    long millis = (left + 999_999) / 1_000_000;
    socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, millis));
  }

  /** {@code raw}, the socket's input, with every read bounded by this deadline. */
  public InputStream bound(InputStream raw) {
    return new FilterInputStream(raw) {
      @Override
      public int read() throws IOException {
        beforeRead();
        return super.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        beforeRead();
        return super.read(b, off, len);
      }

      @Override
      public long skip(long n) throws IOException {
        beforeRead();
        return super.skip(n);
      }
    };
  }
}
