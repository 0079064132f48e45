package io.thriftnio.testkit.memory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Bytes from one side of an in-memory connection to the other: the writer appends, the reader
 * blocks until bytes arrive, the writer's end (EOF) or a reset, within its timeout.
 */
final class MemoryPipe {

  private final ByteArrayOutputStream buffered = new ByteArrayOutputStream();
  private boolean ended;
  private String reset;

  /** Appends {@code bytes}; ignored once ended, as a closed socket's unread input is. */
  synchronized void write(byte[] bytes, int offset, int length) {
    if (!ended) {
      buffered.write(bytes, offset, length);
      notifyAll();
    }
  }

  /** No more bytes: the reader sees EOF once it has read what came before. */
  synchronized void end() {
    ended = true;
    notifyAll();
  }

  /** Aborts: the reader fails at once with {@code why}, dropping what it had not read. */
  synchronized void reset(String why) {
    ended = true;
    reset = why;
    buffered.reset();
    notifyAll();
  }

  /** Takes every byte buffered now (maybe none). */
  synchronized byte[] drain() {
    byte[] bytes = buffered.toByteArray();
    buffered.reset();
    return bytes;
  }

  synchronized boolean ended() {
    return ended;
  }

  /**
   * Reads into {@code into}, waiting at most {@code timeoutMillis} (0: for ever).
   *
   * @return how many bytes were read, or -1 at the end
   * @throws SocketTimeoutException if nothing arrived in time
   * @throws SocketException after a reset
   */
  synchronized int read(byte[] into, int offset, int length, int timeoutMillis) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (buffered.size() == 0 && !ended) {
      long left = deadline - System.nanoTime();
      if (timeoutMillis > 0 && left <= 0) {
        throw new SocketTimeoutException("Read timed out after " + timeoutMillis + " ms");
      }
      try {
        if (timeoutMillis > 0) {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } else {
          wait();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while reading");
      }
    }
    if (reset != null) {
      throw new SocketException("Connection reset: " + reset);
    }
    if (buffered.size() == 0) {
      return -1;
    }
    byte[] all = buffered.toByteArray();
    int n = Math.min(length, all.length);
    System.arraycopy(all, 0, into, offset, n);
    buffered.reset();
    buffered.write(all, n, all.length - n);
    return n;
  }

  /** A stream over {@link #read}, with the timeout {@code timeoutMillis} gives at each read. */
  InputStream inputStream(java.util.function.IntSupplier timeoutMillis) {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
          return 0;
        }
        return MemoryPipe.this.read(b, off, len, timeoutMillis.getAsInt());
      }
    };
  }
}
