package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.ChannelClosedException;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.TooManyCallsInFlightException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One client behaviour on every transport: the same failure gives the same exception type, the same
 * {@link TTransportException} type code and the same message text, whichever {@link ClientIo}
 * opened the connection. Each case asserts the exact text, so two transports that pass it report
 * identically. A transport runs it through a one-method subclass.
 *
 * <p>The peers are plain sockets: one that reads and never answers, one that answers every frame
 * with a frame of {@value StubPeer#OVERSIZE} bytes, one that never reads, one that answers with
 * noise after the answer.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public abstract class ClientContractSuite {

  private static final int OVERSIZE = StubPeer.OVERSIZE;
  private static final byte[] REQUEST = {(byte) 0x80, 1, 0, 1, 0, 0, 0, 0};

  /** A strict-binary call of {@code echo}, seqid 1, no arguments. */
  private static final byte[] ECHO_REQUEST = {
    (byte) 0x80, 1, 0, 1, 0, 0, 0, 4, 'e', 'c', 'h', 'o', 0, 0, 0, 1, 0
  };

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private ClientIo resources;

  /** New resources of the transport under test; the suite closes them. */
  protected abstract ClientIo newResources();

  @BeforeEach
  void open() {
    resources = newResources();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    resources.close();
  }

  @Test
  void aRefusedConnectIsNotOpenNamingTheAddress() throws Exception {
    InetSocketAddress closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = (InetSocketAddress) s.getLocalSocketAddress();
    }
    for (ThrowingOpen open :
        List.<ThrowingOpen>of(
            () -> resources.openTransport(closed), () -> resources.openChannel(closed))) {
      assertThatThrownBy(open::run)
          .isExactlyInstanceOf(TTransportException.class)
          .satisfies(
              e -> {
                assertThat(((TTransportException) e).getType())
                    .isEqualTo(TTransportException.NOT_OPEN);
                assertThat(e.getMessage())
                    .isEqualTo("cannot connect to " + closed + ": Connection refused");
              });
    }
  }

  @Test
  void aSyncTransportRefusesInterceptorsItCouldNotRun() {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    ClientInterceptor noop = new ClientInterceptor() {};
    ClientOptions options = ClientOptions.builder().interceptors(List.of(noop)).build();
    assertThatThrownBy(() -> resources.openTransport(address, options))
        .isExactlyInstanceOf(SettingException.class)
        .hasMessage(
            "interceptors: "
                + List.of(noop)
                + " (expected: none on a sync transport, which does not see where a message"
                + " begins; give them to ThriftClientPool's interceptors(..), or use openChannel)");
  }

  @Test
  void closedResourcesRefuseToConnect() {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    resources.close();
    assertThatThrownBy(() -> resources.openChannel(address))
        .isExactlyInstanceOf(TTransportException.class)
        .hasMessage("cannot connect to " + address + ": client resources closed");
  }

  @Test
  void aCallOnAClosedChannelFailsNotOpenAndSendsNothing() throws Exception {
    StubPeer peer = peer(false);
    ThriftChannel channel = resources.openChannel(peer.address);
    channel.close();
    assertThat(channel.isOpen()).isFalse();
    assertFails(
        channel.exchange(ByteBuffer.wrap(REQUEST)),
        ChannelClosedException.class,
        TTransportException.NOT_OPEN,
        "channel to " + peer.address + " is closed (the channel was closed); call not sent");
  }

  @Test
  void aRequestTimeoutFailsOnlyThatCallAndASilentConnectionClosesAsStuck() throws Exception {
    StubPeer peer = peer(false);
    ThriftChannel channel =
        channel(
            peer,
            ClientOptions.builder()
                .callTimeout(Duration.ofMillis(200))
                .lateReplyTimeout(Duration.ofSeconds(2))
                .build());
    CompletableFuture<ByteBuffer> first = channel.exchange(ByteBuffer.wrap(REQUEST));
    CompletableFuture<ByteBuffer> second =
        channel.exchange(ByteBuffer.wrap(REQUEST), Duration.ofSeconds(20));
    assertFails(
        first,
        CallTimeoutException.class,
        TTransportException.TIMED_OUT,
        "no response from " + peer.address + " within callTimeout 200 ms (2 calls were pending)");
    assertThat(channel.isOpen()).as("a timed-out call fails alone").isTrue();
    assertThat(second).isNotDone();
    assertThat(channel.abandonedCalls()).isEqualTo(1);
    // The peer never answers: with no reply for lateReplyTimeout, the connection is stuck.
    assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.END_OF_FILE);
              assertThat(e.getMessage())
                  .startsWith(
                      "connection to "
                          + peer.address
                          + " closed with 1 calls pending: no reply for")
                  .endsWith("while 1 timed-out calls owed theirs (lateReplyTimeout 2000 ms)");
            });
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void aReadTimeoutFailsTheSyncCallAndClosesTheTransport() throws Exception {
    StubPeer peer = peer(false);
    TTransport transport =
        transport(peer, ClientOptions.builder().callTimeout(Duration.ofMillis(200)).build());
    transport.write(ECHO_REQUEST);
    transport.flush();
    assertThatThrownBy(() -> transport.read(new byte[4], 0, 4))
        .isExactlyInstanceOf(CallTimeoutException.class)
        .satisfies(
            e -> {
              assertThat(((TTransportException) e).getType())
                  .isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "no response to echo from "
                          + peer.address
                          + " within callTimeout 200 ms; transport closed");
            });
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void aResponseOverMaxFrameSizeFailsWithCorruptedData() throws Exception {
    StubPeer peer = peer(true);
    ClientOptions small = ClientOptions.builder().maxFrameSize(1000).build();
    ThriftChannel channel = channel(peer, small);
    assertFails(
        channel.exchange(ByteBuffer.wrap(REQUEST)),
        TTransportException.class,
        TTransportException.CORRUPTED_DATA,
        "connection to "
            + peer.address
            + " closed with 1 calls pending: frame length 2000 exceeds maxFrameSize 1000");
    TTransport transport = transport(peer, small);
    transport.write(REQUEST);
    transport.flush();
    assertThatThrownBy(() -> transport.read(new byte[4], 0, 4))
        .isExactlyInstanceOf(TTransportException.class)
        .satisfies(
            e -> {
              assertThat(((TTransportException) e).getType())
                  .isEqualTo(TTransportException.CORRUPTED_DATA);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "connection to "
                          + peer.address
                          + " failed: frame length 2000 exceeds maxFrameSize 1000");
            });
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void aRequestOverMaxFrameSizeFailsAloneWithFrameSizeException() throws Exception {
    StubPeer peer = peer(false);
    ClientOptions small = ClientOptions.builder().maxFrameSize(1000).build();
    ThriftChannel channel = channel(peer, small);
    String message =
        "request echo to "
            + peer.address
            + ": frame length 1001 exceeds maxFrameSize 1000; not sent";
    byte[] echo = java.util.Arrays.copyOf(ECHO_REQUEST, 1001); // the header, then padding
    assertFails(
        channel.exchange(ByteBuffer.wrap(echo)),
        FrameSizeException.class,
        TTransportException.CORRUPTED_DATA,
        message);
    assertThat(channel.isOpen()).isTrue();
    TTransport transport = transport(peer, small);
    transport.write(ECHO_REQUEST); // the header, as a generated client writes it first
    assertThatThrownBy(() -> transport.write(new byte[1001 - ECHO_REQUEST.length]))
        .isExactlyInstanceOf(FrameSizeException.class)
        .hasMessage(message);
    assertThat(transport.isOpen()).isTrue();
    // Without a readable header, the request is named by its peer alone.
    assertThatThrownBy(() -> transport.write(new byte[1001]))
        .hasMessage(
            "request to "
                + peer.address
                + ": frame length 1001 exceeds maxFrameSize 1000; not sent");
  }

  @Test
  void aCallOverMaxPendingCallsFailsAloneAndTheChannelStaysOpen() throws Exception {
    StubPeer peer = peer(false);
    ThriftChannel channel =
        channel(peer, ClientOptions.builder().maxCallsInFlightPerConnection(1).build());
    CompletableFuture<ByteBuffer> first = channel.exchange(ByteBuffer.wrap(REQUEST));
    assertFails(
        channel.exchange(ByteBuffer.wrap(REQUEST)),
        TooManyCallsInFlightException.class,
        TTransportException.UNKNOWN,
        "pending calls: 1 (limit: 1) to " + peer.address + "; call not sent");
    assertThat(channel.isOpen()).isTrue();
    assertThat(first).isNotDone();
  }

  /**
   * A caller that sends oneway messages faster than the peer reads is refused once {@code
   * maxCallsInFlightPerConnection} messages wait, instead of queueing without bound in the IO
   * library.
   */
  @Test
  void onewaysToAPeerThatDoesNotReadAreBoundedByMaxPendingCalls() throws Exception {
    StubPeer peer = peer(StubPeer.Mode.NOT_READING);
    ThriftChannel channel =
        channel(peer, ClientOptions.builder().maxCallsInFlightPerConnection(8).build());
    ByteBuffer large = ByteBuffer.allocate(256 * 1024);
    int refused = 0;
    for (int i = 0; i < 400 && refused == 0; i++) {
      CompletableFuture<Void> sent = channel.send(large.duplicate());
      if (sent.isCompletedExceptionally()) {
        assertThatThrownBy(sent::join).hasCauseInstanceOf(TooManyCallsInFlightException.class);
        refused++;
      }
    }
    assertThat(refused).as("oneways refused before 100 MB were queued").isPositive();
    assertThat(channel.callsInFlight()).isLessThanOrEqualTo(8);
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void aClosedTransportCannotBeOpenedAgain() throws Exception {
    StubPeer peer = peer(false);
    TTransport transport = transport(peer, ClientOptions.defaults());
    assertThatThrownBy(transport::open)
        .isExactlyInstanceOf(TTransportException.class)
        .satisfies(
            e ->
                assertThat(((TTransportException) e).getType())
                    .isEqualTo(TTransportException.ALREADY_OPEN));
    transport.close();
    assertThatThrownBy(transport::open)
        .isExactlyInstanceOf(TTransportException.class)
        .hasMessage("cannot open: transport to " + peer.address + " is closed");
    assertThat(transport.isOpen()).isFalse();
  }

  /** A sync transport holds at most one response: a frame nobody asked for closes it. */
  @Test
  void framesNobodyAskedForCloseTheSyncTransport() throws Exception {
    StubPeer peer = peer(StubPeer.Mode.FLOODING);
    TTransport transport = transport(peer, ClientOptions.defaults());
    transport.write(REQUEST);
    transport.flush();
    byte[] answer = new byte[8];
    transport.read(answer, 0, 8);
    assertThatThrownBy(() -> transport.read(answer, 0, 8))
        .isExactlyInstanceOf(TTransportException.class)
        .satisfies(
            e -> {
              assertThat(((TTransportException) e).getType())
                  .isEqualTo(TTransportException.CORRUPTED_DATA);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "protocol violation: a frame of 8 bytes arrived from "
                          + peer.address
                          + " with no call waiting for it; connection closed");
            });
    assertThat(transport.isOpen()).isFalse();
  }

  /** A response with no call waiting closes the channel rather than being queued. */
  @Test
  void framesNobodyAskedForCloseTheChannel() throws Exception {
    StubPeer peer = peer(StubPeer.Mode.FLOODING);
    ThriftChannel channel = channel(peer, ClientOptions.defaults());
    assertThat(channel.exchange(ByteBuffer.wrap(REQUEST)).get(10, TimeUnit.SECONDS).remaining())
        .isEqualTo(8);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (channel.isOpen() && System.nanoTime() < deadline) {
      Thread.sleep(5); // the noise is on its way; nothing to wait on but the channel's state
    }
    assertThat(channel.isOpen()).isFalse();
    assertFails(
        channel.exchange(ByteBuffer.wrap(REQUEST)),
        ChannelClosedException.class,
        TTransportException.NOT_OPEN,
        "channel to "
            + peer.address
            + " is closed (a response arrived with no call pending (is the peer a Thrift"
            + " server?)); call not sent");
  }

  private ThriftChannel channel(StubPeer peer, ClientOptions options) throws TTransportException {
    ThriftChannel channel = resources.openChannel(peer.address, options);
    closeables.add(channel);
    return channel;
  }

  private TTransport transport(StubPeer peer, ClientOptions options) throws TTransportException {
    TTransport transport = resources.openTransport(peer.address, options);
    closeables.add(transport);
    return transport;
  }

  private static void assertFails(
      CompletableFuture<?> call, Class<?> type, int typeCode, String message) {
    assertThatThrownBy(() -> call.get(20, TimeUnit.SECONDS))
        .cause()
        .isExactlyInstanceOf(type)
        .satisfies(
            e -> {
              assertThat(((TTransportException) e).getType()).isEqualTo(typeCode);
              assertThat(e.getMessage()).isEqualTo(message);
            });
  }

  @FunctionalInterface
  private interface ThrowingOpen {
    AutoCloseable run() throws Exception;
  }

  private StubPeer peer(boolean oversize) throws IOException {
    return peer(oversize ? StubPeer.Mode.OVERSIZE : StubPeer.Mode.SILENT);
  }

  private StubPeer peer(StubPeer.Mode mode) throws IOException {
    StubPeer peer = new StubPeer(mode);
    closeables.add(peer);
    return peer;
  }
}
