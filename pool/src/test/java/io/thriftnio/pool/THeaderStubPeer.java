package io.thriftnio.pool;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.conformance.THeaderFrames;
import io.thriftnio.testkit.gen.BenchService;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TMemoryInputTransport;

/**
 * A THeader BenchService peer on a raw {@code ServerSocket} (binary inner protocol), written from
 * the spec with the testkit's {@link THeaderFrames}, not with the classes under test: each request
 * is read, run by the handler, and answered with the frame {@code answer} makes of the reply
 * message, so a test chooses what a server sends back (zlib, info headers, a frame over the limit,
 * garbage), and whether it arrives in one write or byte by byte.
 */
final class THeaderStubPeer implements AutoCloseable {

  /** The requests read, in order. */
  final CopyOnWriteArrayList<THeaderFrames.Reply> requests = new CopyOnWriteArrayList<>();

  final AtomicInteger accepted = new AtomicInteger();

  /** Completes when the client closes (or resets) the first connection. */
  final CompletableFuture<Void> firstClosed = new CompletableFuture<>();

  private final BenchService.Processor<BenchHandler> processor =
      new BenchService.Processor<>(new BenchHandler());
  private final ServerSocket server;
  private final Function<byte[], byte[]> answer;
  private final boolean dribble;
  private final CopyOnWriteArrayList<Socket> sockets = new CopyOnWriteArrayList<>();

  /**
   * @param answer the whole reply frame (length prefix included) for a reply message
   * @param dribble whether the frame goes out one byte per write
   */
  THeaderStubPeer(Function<byte[], byte[]> answer, boolean dribble) throws IOException {
    this.answer = answer;
    this.dribble = dribble;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "theader-stub-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        sockets.add(s);
        boolean first = accepted.incrementAndGet() == 1;
        Thread t = new Thread(() -> serve(s, first), "theader-stub-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed by close()
      }
    }
  }

  private void serve(Socket s, boolean first) {
    try (s) {
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        int length = in.readInt();
        byte[] frame = new byte[4 + length];
        ByteBuffer.wrap(frame).putInt(length);
        in.readFully(frame, 4, length);
        THeaderFrames.Reply request = THeaderFrames.read(frame);
        requests.add(request);
        byte[] reply = answer.apply(process(request.message));
        if (dribble) {
          for (byte b : reply) {
            out.write(b);
            out.flush();
          }
        } else {
          out.write(reply);
          out.flush();
        }
      }
    } catch (Exception e) {
      // EOF or reset: the client closed the connection, or close() did; either way it is done.
    } finally {
      if (first) {
        firstClosed.complete(null);
      }
    }
  }

  private byte[] process(byte[] message) throws TException {
    TMemoryBuffer out = new TMemoryBuffer(256);
    processor.process(
        new TBinaryProtocol(new TMemoryInputTransport(message)), new TBinaryProtocol(out));
    byte[] bytes = new byte[out.length()];
    System.arraycopy(out.getArray(), 0, bytes, 0, out.length());
    return bytes;
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
