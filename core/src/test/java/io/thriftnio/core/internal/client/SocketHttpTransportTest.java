package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.HttpStatusException;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.CallTimeoutException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP sync transport against a scripted raw-socket server: the request it sends, replies,
 * oneway calls, reconnecting after {@code Connection: close}, and hostile or broken responses.
 */
@Timeout(30)
class SocketHttpTransportTest {

  private static final int LIMIT = 1000;

  /** What the scripted server does with request number {@code n} (from 0) of the connection. */
  @FunctionalInterface
  interface Script {
    /** Writes the answer; returns whether to keep the connection open. */
    boolean answer(int connection, int n, byte[] body, OutputStream out) throws IOException;
  }

  /** Accepts connections one at a time and answers each request by the script. */
  private static final class ScriptedServer implements AutoCloseable {
    final ServerSocket server;
    final List<String> heads = new CopyOnWriteArrayList<>();
    final AtomicInteger connections = new AtomicInteger();
    final Thread thread;

    ScriptedServer(Script script) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      thread =
          new Thread(
              () -> {
                try {
                  while (true) {
                    try (Socket s = server.accept()) {
                      int c = connections.getAndIncrement();
                      InputStream in = s.getInputStream();
                      OutputStream out = s.getOutputStream();
                      for (int n = 0; ; n++) {
                        byte[] body = readRequest(in);
                        if (body == null) {
                          break;
                        }
                        boolean keep = script.answer(c, n, body, out);
                        out.flush();
                        if (!keep) {
                          break;
                        }
                      }
                    }
                  }
                } catch (IOException closed) {
                  // the test closed the server socket: the thread ends
                }
              },
              "scripted-http-server");
      thread.setDaemon(true);
      thread.start();
    }

    private byte[] readRequest(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        head.write(b);
        byte[] h = head.toByteArray();
        int n = h.length;
        if (n >= 4
            && h[n - 4] == '\r'
            && h[n - 3] == '\n'
            && h[n - 2] == '\r'
            && h[n - 1] == '\n') {
          String text = new String(h, StandardCharsets.ISO_8859_1);
          heads.add(text);
          int length = 0;
          for (String line : text.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(15).trim());
            }
          }
          return in.readNBytes(length);
        }
      }
      return null;
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  private ScriptedServer server;
  private SocketHttpTransport transport;

  @AfterEach
  void close() throws IOException {
    if (transport != null) {
      transport.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private SocketHttpTransport open(Script script, Duration readTimeout) throws Exception {
    server = new ScriptedServer(script);
    ClientOptions options =
        ClientOptions.builder()
            .wireKind(WireKind.HTTP)
            .httpPath("/thrift")
            .maxFrameSize(LIMIT)
            .callTimeout(readTimeout)
            .build();
    transport = SocketHttpTransport.connect(server.address(), options, () -> {});
    return transport;
  }

  private SocketHttpTransport open(Script script) throws Exception {
    return open(script, Duration.ofSeconds(10));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static boolean ok(OutputStream out, byte[] body, boolean close) throws IOException {
    out.write(
        ascii(
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\n"
                + (close ? "Connection: close\r\n" : "")
                + "Content-Length: "
                + body.length
                + "\r\n\r\n"));
    out.write(body);
    return !close;
  }

  /** Sends {@code call} and returns the whole reply. */
  private static String call(SocketHttpTransport t, String call) throws TTransportException {
    byte[] b = ascii(call);
    t.write(b, 0, b.length);
    t.flush();
    byte[] reply = new byte[t.getBytesRemainingInBuffer()];
    t.readAll(reply, 0, reply.length);
    return new String(reply, StandardCharsets.ISO_8859_1);
  }

  @Test
  void postsEachCallAndReadsItsReply() throws Exception {
    SocketHttpTransport t =
        open((c, n, body, out) -> ok(out, ("re:" + new String(body)).getBytes(), false));
    assertThat(call(t, "one")).isEqualTo("re:one");
    assertThat(call(t, "two")).isEqualTo("re:two");
    assertThat(server.connections.get()).isEqualTo(1);
    String port = String.valueOf(server.server.getLocalPort());
    assertThat(server.heads.get(0))
        .startsWith("POST /thrift HTTP/1.1\r\n")
        .contains("\r\nHost: " + server.address().getHostString() + ":" + port)
        .contains("\r\nContent-Type: application/x-thrift\r\n")
        .contains("\r\nAccept: application/x-thrift\r\n")
        .contains("\r\nContent-Length: 3\r\n");
  }

  @Test
  void chunkedReplyIsAssembled() throws Exception {
    SocketHttpTransport t =
        open(
            (c, n, body, out) -> {
              out.write(
                  ascii(
                      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n"));
              return true;
            });
    assertThat(call(t, "x")).isEqualTo("abc");
    assertThat(call(t, "y")).isEqualTo("abc");
  }

  @Test
  void onewayCallsEmpty200IsConsumedAtFlush() throws Exception {
    SocketHttpTransport t =
        open((c, n, body, out) -> ok(out, n == 0 ? new byte[0] : ascii("reply" + n), false));
    byte[] oneway = ascii("fire");
    t.write(oneway, 0, oneway.length);
    t.flush(); // a oneway call: no read follows
    assertThat(call(t, "next")).isEqualTo("reply1");
  }

  @Test
  void connectionCloseMakesTheNextCallReconnect() throws Exception {
    SocketHttpTransport t = open((c, n, body, out) -> ok(out, ascii("c" + c + "n" + n), true));
    assertThat(call(t, "a")).isEqualTo("c0n0");
    assertThat(call(t, "b")).isEqualTo("c1n0");
    assertThat(t.isOpen()).isTrue();
    assertThat(server.connections.get()).isEqualTo(2);
  }

  @Test
  void aKeptAliveConnectionTheServerEndedIsReplacedBeforeTheNextCallIsWritten() throws Exception {
    SocketHttpTransport t =
        open(
            (c, n, body, out) -> {
              ok(out, ascii("c" + c), false); // keep-alive, then the server ends it anyway
              return c != 0;
            });
    assertThat(call(t, "a")).isEqualTo("c0");
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (!t.endedWhileIdle()) { // the server's close reaches the client's socket
      assertThat(System.nanoTime()).as("the end of the stream arrives").isLessThan(deadline);
      Thread.onSpinWait();
    }
    assertThat(call(t, "b")).isEqualTo("c1");
    assertThat(server.connections.get()).isEqualTo(2);
    assertThat(server.heads).hasSize(2); // "b" was never written on the ended connection
  }

  @Test
  void closeAfterTheCallWasSentFailsItWithoutResending() throws Exception {
    SocketHttpTransport t =
        open((c, n, body, out) -> c == 0 ? ok(out, ascii("first"), true) : false);
    assertThat(call(t, "a")).isEqualTo("first");
    // The server closes the second connection without answering.
    assertThatThrownBy(() -> call(t, "b"))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("closed by the server after the call was sent, before any response")
        .hasMessageContaining("not sent again")
        .extracting(e -> ((TTransportException) e).getType())
        .isEqualTo(TTransportException.END_OF_FILE);
    assertThat(t.isOpen()).isFalse();
    assertThat(server.connections.get()).isEqualTo(2);
  }

  @Test
  void status500FailsTheCallWithStatusReasonBodyAndPeer() throws Exception {
    String longBody = "boom: handler failed " + "z".repeat(1000);
    SocketHttpTransport t =
        open(
            (c, n, body, out) -> {
              if (n == 0) {
                out.write(
                    ascii(
                        "HTTP/1.1 500 Server Error\r\nContent-Length: "
                            + 900
                            + "\r\n\r\n"
                            + longBody.substring(0, 900)));
                return true;
              }
              return ok(out, ascii("fine"), false);
            });
    HttpStatusException e = assertThrows(HttpStatusException.class, () -> call(t, "a"));
    assertThat(e.status()).isEqualTo(500);
    assertThat(e.reason()).isEqualTo("Server Error");
    assertThat(e.bodyPrefix()).startsWith("boom: handler failed").hasSize(256);
    assertThat(e.getMessage())
        .startsWith("HTTP status 500 Server Error from " + server.address())
        .contains("(expected: 200): boom: handler failed");
    assertThat(e.getType()).isEqualTo(TTransportException.UNKNOWN);
    // The connection said keep-alive and was read whole: the next call uses it.
    assertThat(call(t, "b")).isEqualTo("fine");
    assertThat(server.connections.get()).isEqualTo(1);
  }

  @Test
  void contentLengthOverTheLimitOrNegativeFailsAndCloses() throws Exception {
    for (String length : new String[] {"1001", "-1", "99999999999999999999999"}) {
      SocketHttpTransport t =
          open(
              (c, n, body, out) -> {
                out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: " + length + "\r\n\r\n"));
                return true;
              });
      assertThatThrownBy(() -> call(t, "a"))
          .as(length)
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("malformed HTTP response from " + server.address())
          .hasMessageContaining("Content-Length")
          .hasMessageContaining("connection closed")
          .extracting(e -> ((TTransportException) e).getType())
          .isEqualTo(TTransportException.CORRUPTED_DATA);
      assertThat(t.isOpen()).isFalse();
      close();
    }
  }

  @Test
  void headThatNeverEndsFailsAtTheReadTimeout() throws Exception {
    SocketHttpTransport t =
        open(
            (c, n, body, out) -> {
              out.write(ascii("HTTP/1.1 200 OK\r\nX-Slow: "));
              out.flush();
              try {
                Thread.sleep(5_000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return false;
            },
            Duration.ofMillis(300));
    assertThatThrownBy(() -> call(t, "a"))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("within callTimeout 300 ms")
        .extracting(e -> ((TTransportException) e).getType())
        .isEqualTo(TTransportException.TIMED_OUT);
    assertThat(t.isOpen()).isFalse();
  }

  /**
   * callTimeout bounds the whole reply: a response trickled one byte every 200 ms (about 9 s) fails
   * at the callTimeout of 1 s, not when a read waits that long.
   */
  @Test
  void tricklingReplyFailsAtTheCallTimeout() throws Exception {
    SocketHttpTransport t =
        open(
            (c, n, body, out) -> {
              byte[] reply = ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
              try {
                for (byte b : reply) {
                  out.write(b);
                  out.flush();
                  Thread.sleep(200); // the misbehaviour under test, not a wait for it
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return false;
            },
            Duration.ofSeconds(1));
    long start = System.nanoTime();
    assertThatThrownBy(() -> call(t, "a"))
        .isInstanceOf(CallTimeoutException.class)
        .hasMessageContaining("within callTimeout 1000 ms");
    // callTimeout plus a margin for a busy machine; the whole reply would take 8.8 s
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    assertThat(t.isOpen()).isFalse();
  }

  @Test
  void endlessHeadIsBoundedBeforeTheTimeout() throws Exception {
    SocketHttpTransport t =
        open(
            (c, n, body, out) -> {
              out.write(ascii("HTTP/1.1 200 OK\r\n"));
              byte[] field = ascii("X-Filler: " + "y".repeat(1000) + "\r\n");
              try {
                for (int i = 0; i < 1000; i++) {
                  out.write(field);
                }
              } catch (IOException closedByClient) {
                // the client gave up once over the bound: what the test expects
              }
              return false;
            });
    assertThatThrownBy(() -> call(t, "a"))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("header section over 65536 bytes");
  }

  @Test
  void responseCutMidBodyFailsClearly() throws Exception {
    SocketHttpTransport t =
        open(
            (c, n, body, out) -> {
              out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
              return false;
            });
    assertThatThrownBy(() -> call(t, "a"))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("connection closed after 3 of 10 body bytes of a 200 response")
        .extracting(e -> ((TTransportException) e).getType())
        .isEqualTo(TTransportException.CORRUPTED_DATA);
    assertThat(t.isOpen()).isFalse();
  }

  @Test
  void replyAtTheLimitIsRead() throws Exception {
    String big = "q".repeat(LIMIT);
    SocketHttpTransport t = open((c, n, body, out) -> ok(out, ascii(big), false));
    assertThat(call(t, "a")).isEqualTo(big);
  }
}
