package io.thriftnio.core;

import io.thriftnio.core.internal.server.ServerConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An IO adapter without a socket, for the call path's own tests: the test thread is its IO thread;
 * writes are kept until flushed, and tasks handed to the IO thread wait for {@link #runIoTasks()}.
 * Every request handle given to the sequencer is a {@link Request} that counts its releases. Made
 * with {@code ioFromAnyThread}, every thread is an IO thread, as on Grizzly's {@code
 * LEADER_FOLLOWER} server, whose writes are thread-safe.
 */
final class MemoryConnection implements ServerConnection {
  final Thread ioThread = Thread.currentThread();
  private final boolean ioFromAnyThread;
  private final List<ByteBuffer> unflushed = new ArrayList<>();

  /** Reply frames flushed, copied, in order. */
  final List<ByteBuffer> sent = new ArrayList<>();

  final List<Request> requests = new ArrayList<>();
  private final ArrayDeque<Runnable> ioTasks = new ArrayDeque<>();
  int flushes;
  int executes;
  int resumes;

  /** null while open; else whether the close half-closed first. */
  Boolean closedHalfFirst;

  int answeredSignals;

  MemoryConnection() {
    this(false);
  }

  MemoryConnection(boolean ioFromAnyThread) {
    this.ioFromAnyThread = ioFromAnyThread;
  }

  /** A request's memory: counts releases. */
  static final class Request {
    final AtomicInteger releases = new AtomicInteger();
  }

  Request newRequest() {
    Request r = new Request();
    requests.add(r);
    return r;
  }

  /** Whether every request was released exactly once. */
  boolean allReleasedOnce() {
    return requests.stream().allMatch(r -> r.releases.get() == 1);
  }

  @Override
  public synchronized void write(ByteBuffer head, ByteBuffer body) {
    check();
    if (closedHalfFirst != null) {
      throw new AssertionError("write after close");
    }
    int length = (head == null ? 0 : head.remaining()) + (body == null ? 0 : body.remaining());
    ByteBuffer copy = ByteBuffer.allocate(length);
    if (head != null) {
      copy.put(head.duplicate());
    }
    if (body != null) {
      copy.put(body.duplicate());
    }
    unflushed.add(copy.flip());
  }

  @Override
  public synchronized void flush() {
    check();
    flushes++;
    sent.addAll(unflushed);
    unflushed.clear();
    notifyAll();
  }

  /** The reply frames flushed so far, copied; from any thread. */
  synchronized List<ByteBuffer> sentSoFar() {
    return new ArrayList<>(sent);
  }

  /** Waits until {@code count} replies are flushed; whether they were within {@code millis}. */
  synchronized boolean awaitSent(int count, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (sent.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  @Override
  public boolean inIoThread() {
    return ioFromAnyThread || Thread.currentThread() == ioThread;
  }

  @Override
  public boolean writesFromAnyThread() {
    return ioFromAnyThread;
  }

  @Override
  public synchronized void execute(Runnable task) {
    executes++;
    ioTasks.add(task);
    notifyAll();
  }

  /** Waits until a task is handed to the IO thread; whether one was within {@code millis}. */
  synchronized boolean awaitIoTask(long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (ioTasks.isEmpty()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** Runs the tasks handed to the IO thread; returns how many ran. */
  int runIoTasks() {
    int n = 0;
    while (true) {
      Runnable task;
      synchronized (this) {
        task = ioTasks.poll();
      }
      if (task == null) {
        return n;
      }
      task.run();
      n++;
    }
  }

  @Override
  public void resumeReading() {
    resumes++;
  }

  @Override
  public void release(Object request) {
    ((Request) request).releases.incrementAndGet();
  }

  @Override
  public void close(boolean halfCloseFirst) {
    check();
    flush();
    if (closedHalfFirst == null) {
      closedHalfFirst = halfCloseFirst;
    }
  }

  /** Whole requests the test says are read and not yet delivered. */
  volatile boolean buffered;

  @Override
  public boolean hasBufferedRequests() {
    return buffered;
  }

  @Override
  public void allAnswered() {
    check();
    answeredSignals++;
  }

  @Override
  public SocketAddress remoteAddress() {
    return InetSocketAddress.createUnresolved("memory", 1);
  }

  private void check() {
    if (!inIoThread()) {
      throw new AssertionError("IO method called on " + Thread.currentThread().getName());
    }
  }
}
