package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.conformance.RawConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ThriftFrameFilter} in a real Grizzly chain on loopback, with the delivery pattern forced:
 * a read buffer of one byte makes every read deliver exactly one byte; a gathering filter in front
 * hands the filter a whole batch of frames as one buffer.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThriftFrameFilterTest {

  private static final Duration WITHIN = Duration.ofSeconds(10);

  private final LinkedBlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
  private final AtomicInteger badFrames = new AtomicInteger();
  private final AtomicInteger reads = new AtomicInteger();
  private final List<TCPNIOTransport> transports = new ArrayList<>();

  @AfterEach
  void shutdown() throws IOException {
    for (TCPNIOTransport t : transports) {
      t.shutdownNow();
    }
  }

  /** Starts a server: [transport, (gather), ThriftFrameFilter(maxFrameSize), collector]. */
  private InetSocketAddress serve(int maxFrameSize, int readBufferSize, int gatherBytes)
      throws IOException {
    FilterChainBuilder chain = FilterChainBuilder.stateless().add(new TransportFilter());
    chain.add(new ReadCounter());
    if (gatherBytes > 0) {
      chain.add(new GatherFilter(gatherBytes));
    }
    chain.add(new ThriftFrameFilter(maxFrameSize, badFrames::incrementAndGet)).add(new Collector());
    TCPNIOTransport transport =
        TCPNIOTransportBuilder.newInstance()
            .setIOStrategy(SameThreadIOStrategy.getInstance())
            .build();
    transport.setSelectorRunnersCount(1);
    if (readBufferSize > 0) {
      transport.setReadBufferSize(readBufferSize);
    }
    transport.setProcessor(chain.build());
    transports.add(transport);
    transport.start();
    return (InetSocketAddress)
        transport
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .getLocalAddress();
  }

  private static byte[] payload(int length, int seed) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (seed * 31 + i);
    }
    return b;
  }

  private byte[] nextFrame() throws InterruptedException {
    byte[] f = frames.poll(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(f).as("a frame within %s", WITHIN).isNotNull();
    return f;
  }

  @Test
  void assemblesFramesDeliveredOneByteAtATime() throws Exception {
    InetSocketAddress address = serve(Framing.DEFAULT_MAX_FRAME_SIZE, 1, 0);
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    for (int i = 1; i <= 3; i++) {
      wire.write(RawConnection.frame(payload(i * 7, i)));
    }
    byte[] bytes = wire.toByteArray();
    try (RawConnection raw = RawConnection.open(address)) {
      raw.write(bytes);
      for (int i = 1; i <= 3; i++) {
        assertThat(nextFrame()).isEqualTo(payload(i * 7, i));
      }
    }
    assertThat(reads.get()).as("one read per byte").isEqualTo(bytes.length);
    assertThat(badFrames.get()).isZero();
  }

  @Test
  void deliversEveryFrameOfOneHundredCoalescedInOneBuffer() throws Exception {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    for (int i = 1; i <= 100; i++) {
      wire.write(RawConnection.frame(payload(i, i)));
    }
    byte[] bytes = wire.toByteArray();
    InetSocketAddress address = serve(Framing.DEFAULT_MAX_FRAME_SIZE, 0, bytes.length);
    try (RawConnection raw = RawConnection.open(address)) {
      raw.write(bytes);
      for (int i = 1; i <= 100; i++) {
        assertThat(nextFrame()).as("frame %d", i).isEqualTo(payload(i, i));
      }
    }
    assertThat(frames).isEmpty();
  }

  @Test
  void keepsTheIncompleteTailOfACoalescedBatchForTheNextRead() throws Exception {
    byte[] whole = RawConnection.frame(payload(50, 1));
    byte[] second = RawConnection.frame(payload(60, 2));
    byte[] firstPart = new byte[whole.length + 10];
    System.arraycopy(whole, 0, firstPart, 0, whole.length);
    System.arraycopy(second, 0, firstPart, whole.length, 10);
    InetSocketAddress address = serve(Framing.DEFAULT_MAX_FRAME_SIZE, 0, firstPart.length);
    try (RawConnection raw = RawConnection.open(address)) {
      raw.write(firstPart);
      assertThat(nextFrame()).isEqualTo(payload(50, 1));
      raw.write(java.util.Arrays.copyOfRange(second, 10, second.length));
      assertThat(nextFrame()).isEqualTo(payload(60, 2));
    }
  }

  @Test
  void acceptsAFrameOfExactlyMaxFrameSize() throws Exception {
    InetSocketAddress address = serve(1000, 0, 0);
    try (RawConnection raw = RawConnection.open(address)) {
      raw.writeFrame(payload(1000, 5));
      assertThat(nextFrame()).isEqualTo(payload(1000, 5));
    }
    assertThat(badFrames.get()).isZero();
  }

  @Test
  void rejectsMaxPlusOneZeroAndNegativeLengthsBeforeReadingThePayload() throws Exception {
    InetSocketAddress address = serve(1000, 0, 0);
    for (int length : new int[] {1001, 0, -1, Integer.MIN_VALUE}) {
      byte[] header = new byte[4];
      Framing.encodeLength(length, header, 0);
      try (RawConnection raw = RawConnection.open(address)) {
        // Only the header: the filter must not wait for the declared payload.
        raw.write(header);
        assertThat(raw.awaitClosedBy(WITHIN)).as("length %d", length).isEmpty();
      }
    }
    assertThat(badFrames.get()).isEqualTo(4);
    assertThat(frames).isEmpty();
  }

  @Test
  void withoutAServerFilterBehindItAnOversizeFrameIsClosedWithoutAReply() throws Exception {
    InetSocketAddress address = serve(1000, 0, 0);
    byte[] call =
        RawConnection.encodeCall(
            new org.apache.thrift.protocol.TBinaryProtocol.Factory(),
            "echo",
            7,
            new io.thriftnio.testkit.gen.BenchService.echo_args(
                java.nio.ByteBuffer.allocate(2000)));
    try (RawConnection raw = RawConnection.open(address)) {
      raw.writeFrame(call);
      assertThat(raw.awaitClosedBy(WITHIN)).isEmpty();
    }
    assertThat(badFrames.get()).isEqualTo(1);
    assertThat(frames).isEmpty();
  }

  @Test
  void rejectsAnHttpRequestByItsFirstFourBytes() throws Exception {
    InetSocketAddress address = serve(Framing.DEFAULT_MAX_FRAME_SIZE, 0, 0);
    try (RawConnection raw = RawConnection.open(address)) {
      // "GET " read as a length is 1195725856, above the default limit.
      raw.write(
          "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      raw.awaitClosedBy(WITHIN);
    }
    assertThat(badFrames.get()).isEqualTo(1);
  }

  @Test
  void aTruncatedFrameThenCloseDeliversNothingAndLeavesOtherConnectionsWorking() throws Exception {
    InetSocketAddress address = serve(Framing.DEFAULT_MAX_FRAME_SIZE, 0, 0);
    try (RawConnection truncated = RawConnection.open(address)) {
      truncated.write(java.util.Arrays.copyOf(RawConnection.frame(payload(100, 1)), 30));
    }
    try (RawConnection good = RawConnection.open(address)) {
      good.writeFrame(payload(10, 2));
      assertThat(nextFrame()).isEqualTo(payload(10, 2));
    }
    assertThat(frames).isEmpty();
    assertThat(badFrames.get()).isZero();
  }

  @Test
  void oneFilterInstanceKeepsSeparateStateForInterleavedConnections() throws Exception {
    InetSocketAddress address = serve(Framing.DEFAULT_MAX_FRAME_SIZE, 0, 0);
    byte[] a = RawConnection.frame(payload(40, 1));
    byte[] b = RawConnection.frame(payload(40, 2));
    try (RawConnection first = RawConnection.open(address);
        RawConnection second = RawConnection.open(address)) {
      first.write(java.util.Arrays.copyOf(a, 20));
      second.write(java.util.Arrays.copyOf(b, 20));
      second.write(java.util.Arrays.copyOfRange(b, 20, b.length));
      assertThat(nextFrame()).isEqualTo(payload(40, 2));
      first.write(java.util.Arrays.copyOfRange(a, 20, a.length));
      assertThat(nextFrame()).isEqualTo(payload(40, 1));
    }
  }

  /** Counts reads as the transport delivers them. */
  private final class ReadCounter extends BaseFilter {
    @Override
    public NextAction handleRead(FilterChainContext ctx) {
      reads.incrementAndGet();
      return ctx.getInvokeAction();
    }
  }

  /**
   * Holds the first bytes back until {@code total} have arrived, then passes them on as one buffer;
   * later bytes pass straight through. One connection per test.
   */
  private static final class GatherFilter extends BaseFilter {
    private final int total;
    private volatile boolean gathered;

    GatherFilter(int total) {
      this.total = total;
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) {
      Buffer b = ctx.getMessage();
      if (!gathered && b.remaining() < total) {
        return ctx.getStopAction(b);
      }
      gathered = true;
      return ctx.getInvokeAction();
    }
  }

  /** Copies every frame it receives into {@link #frames}. */
  private final class Collector extends BaseFilter {
    @Override
    public NextAction handleRead(FilterChainContext ctx) {
      Buffer b = ctx.getMessage();
      byte[] copy = new byte[b.remaining()];
      b.get(copy);
      frames.add(copy);
      return ctx.getStopAction();
    }
  }
}
