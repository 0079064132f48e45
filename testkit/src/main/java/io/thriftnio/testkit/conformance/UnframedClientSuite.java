package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.RecordingClientInterceptor;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * This library's unframed clients ({@code ClientOptions.wireKind(WireKind.UNFRAMED)}): the sync
 * transport and the channel of one {@link ClientIo}, against stock libthrift's {@code
 * TThreadPoolServer} on a plain {@code TServerSocket} (no framing), and against a raw socket peer
 * whose replies are hostile. An IO adapter runs it through a one-method subclass.
 */
@Timeout(60)
public abstract class UnframedClientSuite {

  private static final ClientOptions UNFRAMED =
      ClientOptions.builder().wireKind(WireKind.UNFRAMED).build();

  private static final int ONE_MB = 1024 * 1024;

  /** What every unframed client says of {@link #twoGigabyteStringReply()}, the same on each. */
  private static String twoGigabyteError(StubPeer peer) {
    return "invalid unframed BINARY message from "
        + peer.address
        + ": a string of 2147483647 bytes at byte 23 would exceed maxMessageSize 16384000;"
        + " connection closed";
  }

  /** What every unframed client says when a reply starts with 'H' (an HTTP status line). */
  private static final String GARBAGE_ERROR =
      "first byte 48 (expected: 80 strict binary, 82 compact or 5b '[' JSON; a framed server's"
          + " replies start with a length); connection closed";

  private final List<AutoCloseable> closeAfter = new ArrayList<>();

  /** The resources under test; the suite does not close them. */
  protected abstract ClientIo resources();

  @AfterEach
  void closeEverything() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
  }

  /** The client shapes under test. */
  enum Shape {
    SYNC,
    CHANNEL
  }

  static Stream<Arguments> shapesAndProtocols() {
    List<Arguments> all = new ArrayList<>();
    for (Shape shape : Shape.values()) {
      all.add(Arguments.of(shape, "binary", new TBinaryProtocol.Factory()));
      all.add(Arguments.of(shape, "compact", new TCompactProtocol.Factory()));
      all.add(Arguments.of(shape, "json", new TJSONProtocol.Factory()));
    }
    return all.stream();
  }

  private ClientKind kind(Shape shape) {
    return shape == Shape.SYNC
        ? ClientKinds.syncTransport(
            "unframed-sync", address -> resources().openTransport(address, UNFRAMED))
        : ClientKinds.channel(
            "unframed-channel", address -> resources().openChannel(address, UNFRAMED));
  }

  // ---- interop with stock libthrift ---------------------------------------------------------

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("shapesAndProtocols")
  void callsEveryMethodOfAStockUnframedThreadPoolServer(
      Shape shape, String name, TProtocolFactory protocol) throws Exception {
    BenchHandler handler = new BenchHandler();
    InetSocketAddress address = startStockServer(new BenchService.Processor<>(handler), protocol);
    BenchConnection connection = kind(shape).connect(address, protocol);
    closeAfter.add(connection);
    BenchService.Iface client = connection.iface();

    assertThat(client.get_last_sale("ACME")).isEqualTo(new TradeReport("ACME", 25.50, 100, 1));
    assertThat(client.db_work(100)).hasSize(100).startsWith(BenchHandler.row(0));
    assertThat(client.get_nested(BenchHandler.MAX_DEPTH))
        .isEqualTo(BenchHandler.nested(BenchHandler.MAX_DEPTH));
    client.sleep(1);
    assertThatThrownBy(() -> client.fail(7, "seven"))
        .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(7));
    for (int i = 0; i < 5; i++) {
      client.fire(Payloads.of(Payloads.SMALL, i));
    }
    // fired() is answered after the oneway calls before it on the same connection.
    assertThat(client.fired()).isEqualTo(5);
    ByteBuffer big = client.echo(Payloads.of(ONE_MB, 13));
    assertThat(Payloads.check(big, ONE_MB, 13)).as("1 MB echo intact").isTrue();
    assertThat(client.echo(Payloads.of(0, 0)).remaining()).isZero();
  }

  // ---- hostile replies ----------------------------------------------------------------------

  /** A strict-binary reply declaring a 2 GB string: refused at once, the peer still connected. */
  @Test
  void aReplyDeclaringATwoGigabyteStringFailsTheSyncCallAtOnce() throws Exception {
    StubPeer peer = peer(twoGigabyteStringReply(), false);
    TTransport transport = resources().openTransport(peer.address, UNFRAMED);
    closeAfter.add(transport);
    assertFailsWith(
        () -> call(transport), TTransportException.CORRUPTED_DATA, twoGigabyteError(peer));
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void aReplyDeclaringATwoGigabyteStringFailsTheChannelCallAtOnce() throws Exception {
    StubPeer peer = peer(twoGigabyteStringReply(), false);
    ThriftChannel channel = resources().openChannel(peer.address, UNFRAMED);
    closeAfter.add(channel);
    assertFailsWith(
        () -> exchange(channel), TTransportException.CORRUPTED_DATA, twoGigabyteError(peer));
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void aReplyCutMidMessageFailsTheSyncCallWithEndOfFile() throws Exception {
    byte[] reply = reply(new TBinaryProtocol.Factory(), 100);
    int half = reply.length / 2;
    StubPeer peer = peer(Arrays.copyOf(reply, half), true);
    TTransport transport = resources().openTransport(peer.address, UNFRAMED);
    closeAfter.add(transport);
    assertFailsWith(
        () -> call(transport),
        TTransportException.END_OF_FILE,
        "closed by the peer " + half + " bytes into an unframed reply");
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void aReplyCutMidMessageFailsTheChannelCallWithEndOfFile() throws Exception {
    byte[] reply = reply(new TBinaryProtocol.Factory(), 100);
    int half = reply.length / 2;
    StubPeer peer = peer(Arrays.copyOf(reply, half), true);
    ThriftChannel channel = resources().openChannel(peer.address, UNFRAMED);
    closeAfter.add(channel);
    assertFailsWith(
        () -> exchange(channel),
        TTransportException.END_OF_FILE,
        "closed by the peer " + half + " bytes into an unframed reply");
    assertThat(channel.isOpen()).isFalse();
  }

  /** Two replies to one request: the second, read with no call waiting, closes the transport. */
  @Test
  void aReplyNobodyAskedForClosesTheSyncTransport() throws Exception {
    // In the request's protocol: a reply in another fails as such (WrongShapeSuite).
    byte[] one = reply(new TBinaryProtocol.Factory(), 10);
    StubPeer peer = peer(concat(one, one), false);
    TTransport transport = resources().openTransport(peer.address, UNFRAMED);
    closeAfter.add(transport);
    byte[] first = call(transport);
    assertThat(first).isEqualTo(one);
    assertFailsWith(
        () -> transport.read(new byte[1], 0, 1),
        TTransportException.CORRUPTED_DATA,
        "a frame of " + one.length + " bytes",
        "with no call waiting for it");
    assertThat(transport.isOpen()).isFalse();
  }

  /** Two replies to one request: the second, with no call waiting, closes the channel. */
  @Test
  void aReplyNobodyAskedForClosesTheChannel() throws Throwable {
    byte[] one = reply(new TBinaryProtocol.Factory(), 10);
    StubPeer peer = peer(concat(one, one), false);
    ThriftChannel channel = resources().openChannel(peer.address, UNFRAMED);
    closeAfter.add(channel);
    assertThat(exchange(channel).remaining()).isEqualTo(one.length);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (channel.isOpen() && System.nanoTime() < deadline) {
      Thread.sleep(5); // the second reply is on its way; nothing to wait on but the channel's state
    }
    assertThat(channel.isOpen()).isFalse();
    assertFailsWith(
        () -> exchange(channel), TTransportException.NOT_OPEN, "a response arrived with no call");
  }

  @Test
  void garbageInsteadOfAReplyFailsTheSyncCall() throws Exception {
    StubPeer peer = peer(garbage(), false);
    TTransport transport = resources().openTransport(peer.address, UNFRAMED);
    closeAfter.add(transport);
    assertFailsWith(() -> call(transport), TTransportException.CORRUPTED_DATA, GARBAGE_ERROR);
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void garbageInsteadOfAReplyFailsTheChannelCall() throws Exception {
    StubPeer peer = peer(garbage(), false);
    ThriftChannel channel = resources().openChannel(peer.address, UNFRAMED);
    closeAfter.add(channel);
    assertFailsWith(() -> exchange(channel), TTransportException.CORRUPTED_DATA, GARBAGE_ERROR);
    assertThat(channel.isOpen()).isFalse();
  }

  /** A binary reply whose field type is no Thrift type, after a valid header. */
  @Test
  void aReplyBreakingItsEncodingFailsTheCall() throws Exception {
    byte[] header = header(new TBinaryProtocol.Factory());
    StubPeer peer = peer(concat(header, new byte[] {(byte) 0x63, 0, 1}), false);
    TTransport transport = resources().openTransport(peer.address, UNFRAMED);
    closeAfter.add(transport);
    assertFailsWith(
        () -> call(transport), TTransportException.CORRUPTED_DATA, "unknown field type 99");
    ThriftChannel channel = resources().openChannel(peer.address, UNFRAMED);
    closeAfter.add(channel);
    assertFailsWith(
        () -> exchange(channel), TTransportException.CORRUPTED_DATA, "unknown field type 99");
  }

  /** Timeouts and interceptors belong to the sync transport and the channel, framed or not. */
  @Test
  void aSilentServerTimesTheCallsOutAndInterceptorsSeeIt() throws Throwable {
    StubPeer peer = peer(new byte[0], false); // reads the request, never answers
    TTransport transport =
        resources()
            .openTransport(
                peer.address, UNFRAMED.toBuilder().callTimeout(Duration.ofMillis(200)).build());
    closeAfter.add(transport);
    assertFailsWith(
        () -> call(transport), TTransportException.TIMED_OUT, "within callTimeout 200 ms");
    assertThat(transport.isOpen()).isFalse();

    RecordingClientInterceptor recorder = new RecordingClientInterceptor();
    ClientOptions options =
        UNFRAMED.toBuilder()
            .callTimeout(Duration.ofMillis(200))
            .interceptors(List.of(recorder))
            .build();
    ThriftChannel channel = resources().openChannel(peer.address, options);
    closeAfter.add(channel);
    assertFailsWith(
        () -> exchange(channel), TTransportException.TIMED_OUT, "within callTimeout 200 ms");
    assertThat(recorder.only().outcome()).isEqualTo(CallOutcome.TIMED_OUT);
    assertThat(recorder.only().context().methodName()).isEqualTo("ping");
  }

  // ---- fixtures -----------------------------------------------------------------------------

  private InetSocketAddress startStockServer(TProcessor processor, TProtocolFactory protocol)
      throws Exception {
    TServerSocket socket =
        new TServerSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    TThreadPoolServer.Args args =
        new TThreadPoolServer.Args(socket).minWorkerThreads(2).maxWorkerThreads(8);
    args.processor(processor).protocolFactory(protocol);
    TServer server = new TThreadPoolServer(args);
    Thread serving = new Thread(server::serve, "stock-unframed-thread-pool");
    serving.setDaemon(true);
    serving.start();
    closeAfter.add(server::stop);
    return new InetSocketAddress(
        InetAddress.getLoopbackAddress(), socket.getServerSocket().getLocalPort());
  }

  /** A minimal request: its bytes do not matter to the raw peer. */
  private static byte[] request() throws Exception {
    return header(new TBinaryProtocol.Factory(), TMessageType.CALL, "ping", new byte[] {0});
  }

  /** One call on a raw sync transport: the whole reply's bytes. */
  private static byte[] call(TTransport transport) throws Exception {
    transport.write(request());
    transport.flush();
    byte[] first = new byte[1];
    transport.read(first, 0, 1);
    byte[] rest = new byte[transport.getBytesRemainingInBuffer()];
    transport.readAll(rest, 0, rest.length);
    return concat(first, rest);
  }

  private static ByteBuffer exchange(ThriftChannel channel) throws Throwable {
    try {
      return channel.exchange(ByteBuffer.wrap(request())).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause();
    }
  }

  @FunctionalInterface
  private interface Call {
    Object run() throws Throwable;
  }

  private static void assertFailsWith(Call call, int type, String... parts) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).as("type of %s", e.getMessage()).isEqualTo(type);
              assertThat(e.getMessage()).contains(parts);
            });
  }

  /** A reply's header and an empty result struct, with {@code pad} bytes of string result. */
  private static byte[] reply(TProtocolFactory factory, int pad) throws Exception {
    TMemoryBuffer buffer = new TMemoryBuffer(64);
    TProtocol out = factory.getProtocol(buffer);
    out.writeMessageBegin(new TMessage("echo", TMessageType.REPLY, 1));
    out.writeStructBegin(new TStruct("echo_result"));
    out.writeFieldBegin(new TField("success", (byte) 11, (short) 0));
    out.writeBinary(ByteBuffer.wrap(new byte[pad]));
    out.writeFieldEnd();
    out.writeFieldStop();
    out.writeStructEnd();
    out.writeMessageEnd();
    return Arrays.copyOf(buffer.getArray(), buffer.length());
  }

  private static byte[] header(TProtocolFactory factory) throws Exception {
    return header(factory, TMessageType.REPLY, "echo", new byte[0]);
  }

  private static byte[] header(TProtocolFactory factory, byte type, String name, byte[] after)
      throws Exception {
    TMemoryBuffer buffer = new TMemoryBuffer(64);
    factory.getProtocol(buffer).writeMessageBegin(new TMessage(name, type, 1));
    return concat(Arrays.copyOf(buffer.getArray(), buffer.length()), after);
  }

  /** {@code echo} REPLY, field 0 a string of 2,147,483,647 bytes, and nothing more. */
  private static byte[] twoGigabyteStringReply() throws Exception {
    return header(
        new TBinaryProtocol.Factory(),
        TMessageType.REPLY,
        "echo",
        new byte[] {0x0b, 0, 0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
  }

  /** What a web server might answer: its first byte is 'H' (48). */
  private static byte[] garbage() {
    return "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /**
   * A socket peer that answers each connection's first request with {@code reply}, then closes the
   * connection or holds it open until the client closes it.
   */
  private StubPeer peer(byte[] reply, boolean closeAfterReply) throws IOException {
    StubPeer peer = new StubPeer("unframed-client-peer", s -> answer(s, reply, closeAfterReply));
    closeAfter.add(peer);
    return peer;
  }

  private static void answer(Socket s, byte[] reply, boolean closeAfterReply) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      byte[] buf = new byte[64 * 1024];
      if (in.read(buf) < 0) {
        return;
      }
      out.write(reply);
      out.flush();
      if (closeAfterReply) {
        return;
      }
      while (in.read(buf) >= 0) {
        // holds the connection until the client closes it; later requests get nothing
      }
    } catch (IOException ended) {
      // the client closed the connection, or the test ended
    }
  }
}
