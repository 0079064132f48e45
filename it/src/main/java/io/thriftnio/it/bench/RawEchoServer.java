package io.thriftnio.it.bench;

import io.thriftnio.core.util.internal.Framing;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ceiling row: a length-prefixed echo with no Thrift decoding. Every complete frame that
 * arrives is written back as it is, length prefix included, so a Thrift client reads its own
 * request message back as the "response".
 *
 * <pre>
 *  in:  | 00 00 01 3A | 314 bytes | 00 00 01 3A | 314 bytes | 00 00 .. (partial)
 *  out: | 00 00 01 3A | 314 bytes | 00 00 01 3A | 314 bytes |           (complete frames only)
 * </pre>
 *
 * <p>Plain NIO: selector loops ({@code ioThreads}), the first of which also accepts and hands
 * connections out round-robin. Complete frames are written straight from the read buffer; only a
 * partial write is copied aside, and reading pauses until it drains. A length {@code <= 0} or above
 * the frame limit closes the connection, as every Thrift peer does.
 */
final class RawEchoServer implements RunningServer {

  private static final int INITIAL_BUFFER = 64 * 1024;

  private final InetSocketAddress bindAddress;
  private final int maxFrameSize;
  private final Loop[] loops;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicInteger next = new AtomicInteger();
  private ServerSocketChannel server;
  private InetSocketAddress localAddress;

  RawEchoServer(InetSocketAddress bindAddress, int ioThreads, int maxFrameSize) {
    if (ioThreads <= 0) {
      throw new IllegalArgumentException("ioThreads: " + ioThreads + " (expected: > 0)");
    }
    this.bindAddress = bindAddress;
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    this.loops = new Loop[ioThreads];
  }

  RawEchoServer start() throws IOException {
    server = ServerSocketChannel.open();
    try {
      server.bind(bindAddress, 1024);
      server.configureBlocking(false);
      localAddress = (InetSocketAddress) server.getLocalAddress();
      for (int i = 0; i < loops.length; i++) {
        loops[i] = new Loop(i);
      }
      server.register(loops[0].selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    for (Loop loop : loops) {
      loop.thread.start();
    }
    return this;
  }

  @Override
  public InetSocketAddress address() {
    return localAddress;
  }

  @Override
  public long acceptedConnections() {
    return accepted.get();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeQuietly(server);
    for (Loop loop : loops) {
      if (loop != null) {
        loop.selector.wakeup();
      }
    }
    for (Loop loop : loops) {
      if (loop != null && loop.thread.isAlive() && loop.thread != Thread.currentThread()) {
        try {
          loop.thread.join(5_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
  }

  private void acceptAll() {
    while (true) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (IOException e) {
        if (!closed.get()) {
          System.err.println("raw-echo: accept failed on " + localAddress + ": " + e);
        }
        return;
      }
      if (ch == null) {
        return;
      }
      accepted.incrementAndGet();
      try {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      } catch (IOException e) {
        closeQuietly(ch);
        continue;
      }
      Loop target = loops[Math.floorMod(next.getAndIncrement(), loops.length)];
      target.incoming.add(ch);
      target.selector.wakeup();
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (IOException e) {
      // Closing a socket during shutdown or after a peer vanished: nothing is left to tell it.
    }
  }

  /** One selector thread and its connections. */
  private final class Loop implements Runnable {
    final Selector selector;
    final Queue<SocketChannel> incoming = new ConcurrentLinkedQueue<>();
    final Thread thread;

    Loop(int index) throws IOException {
      this.selector = Selector.open();
      this.thread = new Thread(this, "bench-raw-echo-io-" + (index + 1));
      this.thread.setDaemon(true);
    }

    @Override
    public void run() {
      try {
        while (!closed.get()) {
          selector.select();
          SocketChannel ch;
          while ((ch = incoming.poll()) != null) {
            try {
              ch.register(selector, SelectionKey.OP_READ, new Connection(ch));
            } catch (IOException e) {
              closeQuietly(ch);
            }
          }
          for (SelectionKey key : selector.selectedKeys()) {
            if (!key.isValid()) {
              continue;
            }
            if (key.isAcceptable()) {
              acceptAll();
              continue;
            }
            Connection c = (Connection) key.attachment();
            try {
              if (key.isWritable()) {
                c.drain(key);
              }
              if (key.isValid() && key.isReadable()) {
                c.read(key);
              }
            } catch (IOException e) {
              c.close(key);
            }
          }
          selector.selectedKeys().clear();
        }
      } catch (IOException | ClosedSelectorException e) {
        if (!closed.get()) {
          System.err.println("raw-echo: " + thread.getName() + " stopped: " + e);
        }
      } finally {
        for (SelectionKey key : selector.keys()) {
          closeQuietly(key.channel());
        }
        closeQuietly(selector);
      }
    }
  }

  /** One connection: bytes read, and what could not be written yet. */
  private final class Connection {
    final SocketChannel channel;
    ByteBuffer in = ByteBuffer.allocateDirect(INITIAL_BUFFER);
    ByteBuffer pending;

    Connection(SocketChannel channel) {
      this.channel = channel;
    }

    void read(SelectionKey key) throws IOException {
      int n = channel.read(in);
      if (n < 0) {
        close(key);
        return;
      }
      in.flip();
      int end = in.position();
      int needed = 0;
      while (in.limit() - end >= Framing.HEADER_SIZE) {
        int length = in.getInt(end);
        if (length <= 0 || length > maxFrameSize) {
          System.err.println(
              "raw-echo: frame length "
                  + length
                  + " from "
                  + channel.getRemoteAddress()
                  + " (expected: 1.."
                  + maxFrameSize
                  + "); closing");
          close(key);
          return;
        }
        int frame = Framing.HEADER_SIZE + length;
        if (in.limit() - end < frame) {
          needed = frame;
          break;
        }
        end += frame;
      }
      if (end > in.position()) {
        ByteBuffer out = in.duplicate();
        out.limit(end);
        channel.write(out);
        if (out.hasRemaining()) {
          pending = ByteBuffer.allocate(out.remaining());
          pending.put(out).flip();
          key.interestOps(SelectionKey.OP_WRITE);
        }
        in.position(end);
      }
      in.compact();
      if (needed > in.capacity() && !in.hasRemaining()) {
        // Grow by doubling, and only once the buffer is full: memory follows the bytes that
        // arrived, not the length a peer declared.
        ByteBuffer bigger = ByteBuffer.allocateDirect(Math.min(needed, in.capacity() * 2));
        in.flip();
        bigger.put(in);
        in = bigger;
      }
    }

    void drain(SelectionKey key) throws IOException {
      channel.write(pending);
      if (!pending.hasRemaining()) {
        pending = null;
        key.interestOps(SelectionKey.OP_READ);
      }
    }

    void close(SelectionKey key) {
      key.cancel();
      closeQuietly(channel);
    }
  }

  @Override
  public String toString() {
    return "RawEchoServer{" + localAddress + ", ioThreads=" + loops.length + "}";
  }
}
