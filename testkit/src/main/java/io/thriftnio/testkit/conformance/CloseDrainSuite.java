package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.NotRun;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server's close under traffic, on every transport and strategy (issue 38, items 4 and 5).
 *
 * <ul>
 *   <li>Connects flood in while {@code close()} runs: once it returns, no connection is left open
 *       (each client socket reads its end within a bound) and the server counts none open, so no
 *       call written is left waiting on an open connection. The race is rare: the case repeats
 *       {@value #DEFAULT_ITERATIONS} times (system property {@value #ITERATIONS}) and reports how
 *       many rounds failed.
 *   <li>A client pipelines calls on its connections while the graceful close begins: every call it
 *       wrote gets a normal reply or a {@link NotRun} refusal (never a reset or a broken pipe), and
 *       each connection ends with a clean end of stream once quiet.
 * </ul>
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.TWO_IO_THREADS)
public abstract class CloseDrainSuite extends ServerCellSuite {

  /** System property: rounds of the connect flood, {@value #DEFAULT_ITERATIONS} by default. */
  public static final String ITERATIONS = "thriftnio.closeFlood.iterations";

  private static final int DEFAULT_ITERATIONS = 10;

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();

  /** Threads opening connections, each sending one call on each, during the close. */
  private static final int FLOODERS = 4;

  /** How long after {@code close()} returned every client socket must have read its end. */
  private static final Duration CLOSED_WITHIN = Duration.ofSeconds(5);

  private static final Duration DRAIN = Duration.ofSeconds(10);

  private final List<ThriftServer> servers = new ArrayList<>();

  @AfterEach
  void closeServers() {
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  private ThriftServer start() throws IOException {
    ThriftServer server =
        newServerBuilder()
            .ioStrategy(strategy())
            .protocol(PROTOCOL)
            .drainTimeout(DRAIN)
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    servers.add(server);
    return server.start();
  }

  private static byte[] echoCall(int seq) throws Exception {
    return RawConnection.frame(
        RawConnection.encodeCall(
            PROTOCOL, "echo", seq, new BenchService.echo_args(ByteBuffer.wrap(new byte[16]))));
  }

  // ---- item 4: a connection accepted while the server closes

  @Test
  void closeDuringConnectFloodLeavesNoConnectionOpen() throws Exception {
    int rounds = Integer.getInteger(ITERATIONS, DEFAULT_ITERATIONS);
    List<String> failed = new ArrayList<>();
    int sockets = 0;
    for (int round = 1; round <= rounds; round++) {
      Round r = floodAndClose();
      sockets += r.sockets;
      if (r.failure != null) {
        failed.add("round " + round + ": " + r.failure);
      }
    }
    System.out.printf(
        "close flood %s: %d of %d rounds failed (%d connections)%n",
        strategy(), failed.size(), rounds, sockets);
    assertThat(failed)
        .as("rounds of %d with a connection left open after close()", rounds)
        .isEmpty();
  }

  private record Round(int sockets, String failure) {}

  private Round floodAndClose() throws Exception {
    ThriftServer server = start();
    InetSocketAddress address = server.localAddress();
    ConcurrentLinkedQueue<Socket> opened = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger count = new AtomicInteger();
    byte[] call = echoCall(1);
    List<Thread> flooders = new ArrayList<>();
    for (int i = 0; i < FLOODERS; i++) {
      Thread t =
          new Thread(
              () -> {
                while (!stop.get()) {
                  Socket s = new Socket();
                  try {
                    s.setTcpNoDelay(true);
                    s.connect(address, 2000);
                  } catch (IOException refused) {
                    closeQuietly(s);
                    if (!server.isRunning()) {
                      return; // the listening socket is closed: the flood is over
                    }
                    continue;
                  }
                  opened.add(s);
                  count.incrementAndGet();
                  try {
                    OutputStream out = s.getOutputStream();
                    out.write(call);
                    out.flush();
                  } catch (IOException closedMeanwhile) {
                    // closed by the server already: what the check below wants
                  }
                }
              },
              "close-flood-" + i);
      t.setDaemon(true);
      flooders.add(t);
      t.start();
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (count.get() < 40 && System.nanoTime() < until) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // polls the count
    }
    server.close();
    long closedAt = System.nanoTime();
    stop.set(true);
    for (Thread t : flooders) {
      t.join(10_000);
    }
    List<String> open = new ArrayList<>();
    long deadline = closedAt + CLOSED_WITHIN.toNanos();
    for (Socket s : opened) {
      if (!awaitEnd(s, deadline)) {
        open.add(String.valueOf(s.getLocalSocketAddress()));
      }
      closeQuietly(s);
    }
    long serverOpen = server.stats().openConnections();
    String failure = null;
    if (!open.isEmpty() || serverOpen != 0) {
      failure =
          open.size()
              + " of "
              + opened.size()
              + " client connections still open "
              + CLOSED_WITHIN.toMillis()
              + " ms after close() returned "
              + open
              + "; server counts "
              + serverOpen
              + " open";
    }
    return new Round(opened.size(), failure);
  }

  /** Reads (and discards a reply) until the end of stream or a reset; false if still open. */
  private static boolean awaitEnd(Socket s, long deadlineNanos) {
    byte[] buf = new byte[4096];
    try {
      InputStream in = s.getInputStream();
      while (true) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        s.setSoTimeout((int) Math.max(1, left));
        try {
          if (in.read(buf) < 0) {
            return true;
          }
        } catch (SocketTimeoutException stillOpen) {
          if (left <= 0) {
            return false;
          }
        }
      }
    } catch (IOException reset) {
      return true; // a reset is an end too
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  // ---- item 5: calls that arrive during the drain

  @Test
  void callsPipelinedWhileTheDrainBeginsGetAReplyOrANotRunRefusal() throws Exception {
    ThriftServer server = start();
    int connections = 3;
    List<Pipeliner> clients = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      Pipeliner p = new Pipeliner(server.localAddress(), i);
      clients.add(p);
      p.start();
    }
    for (Pipeliner p : clients) {
      assertThat(p.answered.tryAcquire(50, 10, TimeUnit.SECONDS))
          .as("50 calls answered on %s before the close", p)
          .isTrue();
    }
    server.close();
    for (Pipeliner p : clients) {
      assertThat(p.done.await(30, TimeUnit.SECONDS)).as("%s ended", p).isTrue();
    }
    for (Pipeliner p : clients) {
      assertThat(p.failure).as("what %s's connection failed with", p).isNull();
      assertThat(p.unanswered()).as("calls %s wrote and never had answered", p).isEmpty();
      assertThat(p.notRun.get() + p.ok.get()).isEqualTo(p.written.get());
    }
    int refused = clients.stream().mapToInt(p -> p.notRun.get()).sum();
    System.out.printf(
        "drain %s: %d calls answered, %d refused as not run%n",
        strategy(), clients.stream().mapToInt(p -> p.ok.get()).sum(), refused);
  }

  /**
   * One connection that pipelines echo calls, up to 8 unanswered, until the server says one was not
   * run (then it stops writing, as a pool would) or the connection ends; reads every reply and the
   * end of stream.
   */
  private static final class Pipeliner {
    final Socket socket;
    final String name;
    final Semaphore window = new Semaphore(8);
    final Semaphore answered = new Semaphore(0);
    final Map<Integer, Boolean> pending = new ConcurrentHashMap<>();
    final AtomicInteger written = new AtomicInteger();
    final AtomicInteger ok = new AtomicInteger();
    final AtomicInteger notRun = new AtomicInteger();
    final AtomicBoolean refusedOnce = new AtomicBoolean();
    final CountDownLatch done = new CountDownLatch(2);
    volatile String failure;

    Pipeliner(InetSocketAddress address, int n) throws IOException {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(address, 10_000);
      socket.setSoTimeout(30_000);
      name = "pipeliner-" + n;
    }

    void start() {
      Thread writer = new Thread(this::write, name + "-writer");
      Thread reader = new Thread(this::read, name + "-reader");
      writer.setDaemon(true);
      reader.setDaemon(true);
      writer.start();
      reader.start();
    }

    private void write() {
      try {
        OutputStream out = socket.getOutputStream();
        for (int seq = 1; ; seq++) {
          while (!window.tryAcquire(10, TimeUnit.MILLISECONDS)) {
            if (refusedOnce.get() || done.getCount() < 2) {
              return;
            }
          }
          if (refusedOnce.get()) {
            return; // the server said it drains: a pool sends the next call elsewhere
          }
          pending.put(seq, Boolean.TRUE);
          written.incrementAndGet();
          out.write(echoCall(seq));
          out.flush();
        }
      } catch (IOException e) {
        failure = "a write failed: " + e;
      } catch (Exception e) {
        failure = "the writer failed: " + e;
      } finally {
        done.countDown();
      }
    }

    private void read() {
      try {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        while (true) {
          int length;
          try {
            length = in.readInt();
          } catch (EOFException end) {
            return; // a clean end of stream
          }
          byte[] payload = new byte[length];
          in.readFully(payload);
          TMessage reply;
          try {
            reply = RawConnection.decodeReply(PROTOCOL, payload, new BenchService.echo_result());
            ok.incrementAndGet();
          } catch (TApplicationException e) {
            if (!NotRun.isNotRun(e)) {
              failure = "a call failed: " + e;
              return;
            }
            reply = null;
            refusedOnce.set(true);
            notRun.incrementAndGet();
            pendingRemoveRefused(e);
          }
          if (reply != null) {
            pending.remove(reply.seqid);
          }
          window.release();
          answered.release();
        }
      } catch (SocketException e) {
        failure = "the connection failed: " + e;
      } catch (Exception e) {
        failure = "the reader failed: " + e;
      } finally {
        done.countDown();
        closeQuietly(socket);
      }
    }

    /** A refusal says its seqid in its message: {@code (echo seqid N)}. */
    private void pendingRemoveRefused(TApplicationException e) {
      String m = e.getMessage();
      int at = m.lastIndexOf("seqid ");
      if (at >= 0) {
        String digits = m.substring(at + 6).replaceAll("[^0-9].*$", "");
        pending.remove(Integer.parseInt(digits));
      }
    }

    List<Integer> unanswered() {
      return new ArrayList<>(pending.keySet());
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
