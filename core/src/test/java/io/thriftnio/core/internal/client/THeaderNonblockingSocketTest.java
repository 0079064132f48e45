package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.HeaderSlot;
import io.thriftnio.core.wire.THeaderFrames;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link THeaderNonblockingSocket} driven as libthrift's {@code TAsyncMethodCall} drives it (a
 * 4-byte size, then the message; reads of a size, then of the message), against a blocking peer on
 * loopback with small socket buffers, so writes and reads come in parts.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class THeaderNonblockingSocketTest {

  private static final ClientOptions HEADER =
      ClientOptions.builder().wireKind(WireKind.HEADER).build();

  private ServerSocketChannel listening;
  private SocketChannel peer;
  private THeaderNonblockingSocket socket;
  private Selector selector;

  @BeforeEach
  void connect() throws Exception {
    listening = ServerSocketChannel.open();
    listening.setOption(StandardSocketOptions.SO_RCVBUF, 16 * 1024);
    listening.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    SocketChannel client = SocketChannel.open();
    client.setOption(StandardSocketOptions.SO_SNDBUF, 16 * 1024);
    client.connect(listening.getLocalAddress());
    peer = listening.accept();
    socket =
        new THeaderNonblockingSocket(
            client, HEADER, (InetSocketAddress) listening.getLocalAddress());
    selector = Selector.open();
    socket.registerSelector(selector, SelectionKey.OP_READ);
  }

  @AfterEach
  void close() throws IOException {
    socket.close();
    peer.close();
    listening.close();
    selector.close();
  }

  /** A strict-binary call message of {@code size} bytes. */
  private static byte[] message(int size) {
    byte[] m = new byte[size];
    new Random(size).nextBytes(m);
    m[0] = (byte) 0x80;
    m[1] = 0x01;
    return m;
  }

  private static ByteBuffer size(int length) {
    return ByteBuffer.allocate(4).putInt(length).flip();
  }

  /** Calls {@code step} until it reports done, within 10 s. */
  private static void poll(Step step) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!step.done()) {
      assertThat(System.nanoTime() - deadline).as("still waiting after 10 s").isNegative();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private interface Step {
    boolean done() throws Exception;
  }

  @Test
  void aRequestTheSocketCannotTakeAtOnceKeepsItsLastByteUntilTheWholeFrameIsSent()
      throws Exception {
    byte[] request = message(4 * 1024 * 1024);
    socket.beginCall(new HeaderSlot(Map.of("tenant", "acme")), 1500);
    ByteBuffer length = size(request.length);
    assertThat(socket.write(length)).isEqualTo(4);
    ByteBuffer body = ByteBuffer.wrap(request);
    socket.write(body);
    assertThat(body.remaining()).as("the peer reads nothing yet").isPositive();

    CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(this::readFrame);
    poll(
        () -> {
          socket.write(body);
          return !body.hasRemaining();
        });
    THeaderFrames.Reply frame = THeaderFrames.read(received.get(10, TimeUnit.SECONDS));
    assertThat(frame.protocolId).isZero();
    assertThat(frame.flags).as("as every THeader client of this library").isEqualTo(1);
    assertThat(frame.headers)
        .containsEntry("tenant", "acme")
        .containsEntry("client_timeout", "1500");
    assertThat(Arrays.equals(frame.message, request)).isTrue();
  }

  private byte[] readFrame() {
    try {
      ByteBuffer prefix = ByteBuffer.allocate(4);
      while (prefix.hasRemaining()) {
        peer.read(prefix);
      }
      ByteBuffer frame = ByteBuffer.allocate(4 + prefix.getInt(0));
      frame.put(prefix.flip());
      while (frame.hasRemaining()) {
        if (peer.read(frame) < 0) {
          throw new IOException("closed after " + frame.position() + " bytes");
        }
      }
      return frame.array();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aReplyArrivingByteByByteIsHandedOverFramedWithItsHeaders() throws Exception {
    HeaderSlot scope = new HeaderSlot(Map.of());
    socket.beginCall(scope, 0);
    byte[] reply = message(300);
    reply[0] = (byte) 0x82; // compact
    byte[] frame = THeaderFrames.request().protocol(2).header("region", "eu").seqId(0).frame(reply);
    CompletableFuture<Void> sent =
        CompletableFuture.runAsync(
            () -> {
              try {
                for (byte b : frame) {
                  peer.write(ByteBuffer.wrap(new byte[] {b}));
                }
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });

    ByteBuffer length = ByteBuffer.allocate(4);
    poll(
        () -> {
          socket.read(length);
          return !length.hasRemaining();
        });
    assertThat(length.getInt(0)).isEqualTo(reply.length);
    SelectionKey key = socket.getSocketChannel().keyFor(selector);
    assertThat(key.interestOps() & SelectionKey.OP_WRITE)
        .as("the message's bytes left the socket: the key must be selected again")
        .isNotZero();
    ByteBuffer message = ByteBuffer.allocate(reply.length);
    assertThat(socket.read(message)).isEqualTo(reply.length);
    assertThat(message.array()).isEqualTo(reply);
    assertThat(scope.reply()).containsEntry("region", "eu");
    assertThat(socket.lastReplyHeaders()).containsEntry("region", "eu");
    assertThat(socket.hasUnreadBytes()).isFalse();
    sent.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aReplyCutShortByThePeerFailsNamingItAndCloses() throws Exception {
    socket.beginCall(null, 0);
    byte[] frame = THeaderFrames.request().frame(message(100));
    peer.write(ByteBuffer.wrap(frame, 0, 40));
    peer.close();
    ByteBuffer length = ByteBuffer.allocate(4);
    int port = ((InetSocketAddress) listening.getLocalAddress()).getPort();
    assertThatThrownBy(() -> poll(() -> socket.read(length) < 0))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining(String.valueOf(port));
    assertThat(socket.isOpen()).isFalse();
  }
}
