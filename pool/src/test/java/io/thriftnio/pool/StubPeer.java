package io.thriftnio.pool;

import io.thriftnio.core.NotRun;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TMemoryInputTransport;

/**
 * A framed, binary-protocol BenchService peer on a raw {@code ServerSocket}, whose misbehaviour a
 * test switches on: stall (read the request, never answer), wrong sequence id, kill and restart on
 * the same port.
 */
final class StubPeer implements AutoCloseable {

  enum Mode {
    NORMAL,
    STALL,
    WRONG_SEQID,
    /** Runs the handler, then closes the connection instead of replying. */
    DROP_AFTER_HANDLER,
    /**
     * Answers every call with a "not run" refusal ({@link NotRun}, overloaded), running nothing.
     */
    NOT_RUN,
    /** As {@link #NOT_RUN}, the reason saying the server is draining. */
    NOT_RUN_DRAINING,
    /** Runs the handler, then sends its reply one byte every 200 ms. */
    TRICKLE,
    /** Runs the handler, sends half its reply, then resets the connection (RST, no FIN). */
    RESET_MID_REPLY,
    /**
     * Sends the connection's previous reply again before each reply: a duplicate that arrives only
     * once the next call has been sent, long after its own call ended.
     */
    STALE_FIRST
  }

  /** Calls answered with a "not run" refusal. */
  final AtomicInteger refused = new AtomicInteger();

  /** The sequence id of each request read, in order. */
  final java.util.List<Integer> seqids = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Requests the handler ran, whatever happened to the reply. */
  final AtomicInteger handled = new AtomicInteger();

  volatile Mode mode = Mode.NORMAL;

  /** While set, replies wait for it to open (requests are still read and processed). */
  volatile java.util.concurrent.CountDownLatch replyGate;

  final AtomicInteger accepted = new AtomicInteger();
  final AtomicInteger stalled = new AtomicInteger();
  private final BenchService.Processor<BenchHandler> processor =
      new BenchService.Processor<>(new BenchHandler());
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final int port;
  private volatile ServerSocket server;
  private Thread acceptor;

  private StubPeer(ServerSocket server) {
    this.server = server;
    this.port = server.getLocalPort();
    startAccepting();
  }

  static StubPeer start() throws IOException {
    return startOn(0);
  }

  static StubPeer startOn(int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress("127.0.0.1", port));
    return new StubPeer(s);
  }

  /** A port nothing listens on (bound, then released). */
  static int unusedPort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", port);
  }

  /** Open connections the peer holds. */
  int openConnections() {
    return sockets.size();
  }

  /** Closes the listening socket and every connection, as a crashed server would. */
  synchronized void kill() throws IOException {
    java.util.concurrent.CountDownLatch gate = replyGate;
    if (gate != null) {
      gate.countDown(); // no serving thread stays parked on a test that failed early
    }
    server.close();
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Socket s : sockets) {
      s.close();
    }
  }

  /** Closes every accepted connection but keeps listening, as a server dropping idle ones. */
  void dropConnections() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
  }

  /** Listens again on the same port. */
  synchronized void restart() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(address());
    server = s;
    startAccepting();
  }

  private void startAccepting() {
    ServerSocket listening = server;
    acceptor =
        new Thread(
            () -> {
              while (!listening.isClosed()) {
                try {
                  Socket s = listening.accept();
                  // A reply is two writes (length, then bytes): without this, Nagle holds the
                  // second until the client's delayed ACK, 40 ms a call.
                  s.setTcpNoDelay(true);
                  accepted.incrementAndGet();
                  sockets.add(s);
                  Thread t = new Thread(() -> serve(s), "stub-peer-conn");
                  t.setDaemon(true);
                  t.start();
                } catch (IOException e) {
                  return; // closed
                }
              }
            },
            "stub-peer-accept-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void serve(Socket s) {
    try (s) {
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      byte[] previous = null;
      while (true) {
        int length = in.readInt();
        byte[] frame = new byte[length];
        in.readFully(frame);
        Mode m = mode;
        if (m == Mode.STALL) {
          stalled.incrementAndGet();
          continue;
        }
        if (m == Mode.NOT_RUN || m == Mode.NOT_RUN_DRAINING) {
          byte[] refusal =
              refuse(
                  frame,
                  m == Mode.NOT_RUN
                      ? "the server is overloaded (test)"
                      : "the server is draining (test)");
          refused.incrementAndGet();
          out.writeInt(refusal.length);
          out.write(refusal);
          out.flush();
          continue;
        }
        byte[] reply = process(frame);
        handled.incrementAndGet();
        if (m == Mode.DROP_AFTER_HANDLER) {
          return; // closes the connection: the caller cannot tell whether the handler ran
        }
        if (reply.length == 0) {
          continue; // oneway
        }
        java.util.concurrent.CountDownLatch gate = replyGate;
        if (gate != null) {
          gate.await();
        }
        if (m == Mode.TRICKLE) {
          trickle(out, reply);
          continue;
        }
        if (m == Mode.RESET_MID_REPLY) {
          out.writeInt(reply.length);
          out.write(reply, 0, reply.length / 2);
          out.flush();
          s.setSoLinger(true, 0); // close() now sends a reset
          return;
        }
        if (m == Mode.WRONG_SEQID) {
          ByteBuffer b = ByteBuffer.wrap(reply);
          int nameLength = b.getInt(4);
          int at = 8 + nameLength;
          b.putInt(at, b.getInt(at) + 1000);
        }
        if (m == Mode.STALE_FIRST && previous != null) {
          out.writeInt(previous.length);
          out.write(previous);
        }
        previous = reply;
        out.writeInt(reply.length);
        out.write(reply);
        out.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | TException e) {
      // The client went away or the test killed us: either way this connection is done.
    } finally {
      sockets.remove(s);
    }
  }

  /** Writes {@code reply}, framed, one byte every 200 ms: a server too slow to finish a reply. */
  private static void trickle(DataOutputStream out, byte[] reply)
      throws IOException, InterruptedException {
    ByteBuffer framed = ByteBuffer.allocate(4 + reply.length).putInt(reply.length).put(reply);
    for (byte b : framed.array()) {
      out.write(b);
      out.flush();
      Thread.sleep(200); // the misbehaviour under test, not a wait for it
    }
  }

  /** The refusal of the call in {@code frame}, as a thrift-nio server words it. */
  private static byte[] refuse(byte[] frame, String reason) throws TException {
    TMessage call = new TBinaryProtocol(new TMemoryInputTransport(frame)).readMessageBegin();
    TMemoryBuffer out = new TMemoryBuffer(128);
    TBinaryProtocol protocol = new TBinaryProtocol(out);
    protocol.writeMessageBegin(new TMessage(call.name, TMessageType.EXCEPTION, call.seqid));
    NotRun.exception(reason + " (" + call.name + " seqid " + call.seqid + ")").write(protocol);
    protocol.writeMessageEnd();
    byte[] bytes = new byte[out.length()];
    System.arraycopy(out.getArray(), 0, bytes, 0, out.length());
    return bytes;
  }

  private byte[] process(byte[] frame) throws TException {
    seqids.add(new TBinaryProtocol(new TMemoryInputTransport(frame)).readMessageBegin().seqid);
    TMemoryInputTransport in = new TMemoryInputTransport(frame);
    TMemoryBuffer out = new TMemoryBuffer(256);
    processor.process(new TBinaryProtocol(in), new TBinaryProtocol(out));
    byte[] bytes = new byte[out.length()];
    System.arraycopy(out.getArray(), 0, bytes, 0, out.length());
    return bytes;
  }

  @Override
  public void close() throws IOException {
    kill();
  }
}
