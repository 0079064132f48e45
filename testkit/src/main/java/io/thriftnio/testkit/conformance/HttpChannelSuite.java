package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.HttpStatusException;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.WireKind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an HTTP {@link ThriftChannel} does against a scripted raw-socket HTTP server: pipelined
 * calls answered in order, a oneway call's empty {@code 200} consumed in its place, a non-200
 * failing only its call, {@code Connection: close} and a response cut short failing the calls still
 * waiting and closing the channel, and hostile responses (a {@code Content-Length} over the limit
 * or negative, a head that never ends). A transport runs it through a subclass that supplies its
 * client resources.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class HttpChannelSuite {

  private static final int LIMIT = 64 * 1024;

  /** The resources whose channels are under test; shared, not closed by the suite. */
  protected abstract ClientIo resources();

  /** What the scripted server does with the requests of one connection. */
  @FunctionalInterface
  protected interface Script {
    /**
     * Answers after {@code bodies} (every request read so far on the connection); returns whether
     * to go on reading.
     */
    boolean answer(List<byte[]> bodies, OutputStream out) throws IOException;
  }

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String text(ByteBuffer b) {
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    return new String(a, StandardCharsets.ISO_8859_1);
  }

  private static void ok(OutputStream out, String body, boolean close) throws IOException {
    out.write(
        ascii(
            "HTTP/1.1 200 OK\r\n"
                + (close ? "Connection: close\r\n" : "")
                + "Content-Length: "
                + body.length()
                + "\r\n\r\n"
                + body));
  }

  /** A one-connection-at-a-time server running {@code script}; closed after the test. */
  private InetSocketAddress serve(Script script) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    open.add(server);
    Thread t =
        new Thread(
            () -> {
              try {
                while (true) {
                  try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    List<byte[]> bodies = new ArrayList<>();
                    while (true) {
                      byte[] body = readRequest(in);
                      if (body == null) {
                        break;
                      }
                      bodies.add(body);
                      boolean more = script.answer(bodies, out);
                      out.flush();
                      if (!more) {
                        break;
                      }
                    }
                  }
                }
              } catch (IOException closed) {
                // the server socket was closed after the test: the thread ends
              }
            },
            "scripted-http-server");
    t.setDaemon(true);
    t.start();
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  private static byte[] readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      head.write(b);
      String h = head.toString(StandardCharsets.ISO_8859_1);
      if (h.endsWith("\r\n\r\n")) {
        int length = 0;
        for (String line : h.split("\r\n")) {
          if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
            length = Integer.parseInt(line.substring(15).trim());
          }
        }
        return in.readNBytes(length);
      }
    }
    return null;
  }

  private ThriftChannel channel(InetSocketAddress address, Duration requestTimeout)
      throws TTransportException {
    ThriftChannel channel =
        resources()
            .openChannel(
                address,
                ClientOptions.builder()
                    .wireKind(WireKind.HTTP)
                    .httpPath("/t")
                    .maxFrameSize(LIMIT)
                    .callTimeout(requestTimeout)
                    .build());
    open.add(channel);
    return channel;
  }

  private ThriftChannel channel(InetSocketAddress address) throws TTransportException {
    return channel(address, Duration.ofSeconds(20));
  }

  private static ByteBuffer msg(String s) {
    return ByteBuffer.wrap(ascii(s));
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call succeeded: " + f.get());
  }

  @Test
  void pipelinedCallsAndOnewaysAreAnsweredInOrder() throws Exception {
    ThriftChannel channel =
        channel(
            serve(
                (bodies, out) -> {
                  String body = new String(bodies.get(bodies.size() - 1), StandardCharsets.UTF_8);
                  ok(out, body.startsWith("oneway") ? "" : "re:" + body, false);
                  return true;
                }));
    List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
    List<CompletableFuture<Void>> oneways = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      if (i % 5 == 0) {
        oneways.add(channel.send(msg("oneway" + i)));
      }
      calls.add(channel.exchange(msg("call" + i)));
    }
    for (int i = 0; i < calls.size(); i++) {
      assertThat(text(calls.get(i).get(20, TimeUnit.SECONDS))).isEqualTo("re:call" + i);
    }
    CompletableFuture.allOf(oneways.toArray(new CompletableFuture<?>[0])).get(20, TimeUnit.SECONDS);
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void aNon200FailsOnlyItsCall() throws Exception {
    ThriftChannel channel =
        channel(
            serve(
                (bodies, out) -> {
                  if (bodies.size() == 1) {
                    out.write(
                        ascii(
                            "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 13\r\n\r\n"
                                + "try elsewhere"));
                  } else {
                    ok(out, "fine", false);
                  }
                  return true;
                }));
    Throwable e = failure(channel.exchange(msg("a")));
    assertThat(e).isInstanceOf(HttpStatusException.class);
    assertThat(((HttpStatusException) e).status()).isEqualTo(503);
    assertThat(e.getMessage()).contains("Service Unavailable").contains("try elsewhere");
    assertThat(text(channel.exchange(msg("b")).get(20, TimeUnit.SECONDS))).isEqualTo("fine");
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void connectionCloseFailsTheCallsStillWaitingAndClosesTheChannel() throws Exception {
    ThriftChannel channel =
        channel(
            serve(
                (bodies, out) -> {
                  if (bodies.size() < 2) {
                    return true; // wait for the second request before answering the first
                  }
                  ok(out, "first", true);
                  return false;
                }));
    CompletableFuture<ByteBuffer> first = channel.exchange(msg("a"));
    CompletableFuture<ByteBuffer> second = channel.exchange(msg("b"));
    assertThat(text(first.get(20, TimeUnit.SECONDS))).isEqualTo("first");
    Throwable e = failure(second);
    assertThat(e)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("closed with 1 calls pending")
        .hasMessageContaining("Connection: close");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void aResponseCutMidBodyFailsTheCallClearly() throws Exception {
    ThriftChannel channel =
        channel(
            serve(
                (bodies, out) -> {
                  out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));
                  return false;
                }));
    Throwable e = failure(channel.exchange(msg("a")));
    assertThat(e)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("connection closed after 3 of 10 body bytes of a 200 response");
    assertThat(((TTransportException) e).getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void aContentLengthOverTheLimitOrNegativeFailsBeforeTheBody() throws Exception {
    for (String length : new String[] {String.valueOf(LIMIT + 1), "-5"}) {
      ThriftChannel channel =
          channel(
              serve(
                  (bodies, out) -> {
                    out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: " + length + "\r\n\r\n"));
                    return true; // and keep the connection open: the client must give up itself
                  }));
      Throwable e = failure(channel.exchange(msg("a")));
      assertThat(e)
          .as(length)
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("malformed HTTP response")
          .hasMessageContaining("Content-Length");
      assertThat(((TTransportException) e).getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
    }
  }

  @Test
  void aHeadThatNeverEndsIsBoundedOrTimesOut() throws Exception {
    ThriftChannel endless =
        channel(
            serve(
                (bodies, out) -> {
                  out.write(ascii("HTTP/1.1 200 OK\r\n"));
                  byte[] field = ascii("X-Filler: " + "y".repeat(1000) + "\r\n");
                  try {
                    for (int i = 0; i < 100; i++) {
                      out.write(field);
                    }
                  } catch (IOException closedByClient) {
                    // the client gave up past the bound: what the test expects
                  }
                  return false;
                }));
    assertThat(failure(endless.exchange(msg("a"))))
        .hasMessageContaining("header section over 65536 bytes");
    ThriftChannel stalled =
        channel(
            serve(
                (bodies, out) -> {
                  out.write(ascii("HTTP/1.1 200 OK\r\nX-Slow: "));
                  return true; // never ends the head
                }),
            Duration.ofMillis(300));
    Throwable e = failure(stalled.exchange(msg("a")));
    assertThat(((TTransportException) e).getType()).isEqualTo(TTransportException.TIMED_OUT);
    assertThat(e).hasMessageContaining("within callTimeout 300 ms");
  }
}
