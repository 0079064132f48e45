package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.fuzz.FrameInputs;
import io.thriftnio.testkit.fuzz.Fuzz;
import io.thriftnio.testkit.fuzz.LogWatch;
import io.thriftnio.testkit.fuzz.OpenFiles;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ThriftFrameFilter} in a real chain on loopback against random streams ({@link
 * FrameInputs}) written in random pieces, one connection each: the frames passed on are exactly the
 * complete valid frames of the stream, in order; a bad length is counted once and closes the
 * connection, with nothing passed on after it; a stream without one stays open until the client
 * closes. Open descriptors stay level. Long run: see {@link Fuzz}.
 */
@Timeout(3600) // a long run sets its own budget (Fuzz.SECONDS); each input waits at most WITHIN
class ThriftFrameFilterFuzzTest {

  private static final Duration WITHIN = Duration.ofSeconds(20);
  private static final int MAX = 4096;

  private final Map<Connection<?>, List<byte[]>> open = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<List<byte[]>> closed = new LinkedBlockingQueue<>();
  private final AtomicInteger badFrames = new AtomicInteger();

  @Test
  void passesOnExactlyTheValidFramesAndClosesOnBadLengths() throws Exception {
    TCPNIOTransport transport =
        TCPNIOTransportBuilder.newInstance()
            .setIOStrategy(SameThreadIOStrategy.getInstance())
            .build();
    transport.setSelectorRunnersCount(1);
    transport.setProcessor(
        FilterChainBuilder.stateless()
            .add(new TransportFilter())
            .add(new ThriftFrameFilter(MAX, badFrames::incrementAndGet))
            .add(new Collector())
            .build());
    transport.start();
    try {
      InetSocketAddress address =
          (InetSocketAddress)
              transport
                  .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                  .getLocalAddress();
      int fdsBefore = OpenFiles.count();
      List<String> errors;
      try (LogWatch log = new LogWatch()) { // a WARN line per bad length: kept out of the build log
        Fuzz.of("ThriftFrameFilter", 20261122L, 3000)
            .run(
                (index, random, input) -> {
                  FrameInputs.Stream stream = FrameInputs.next(random, MAX);
                  input.record(stream.kind(), stream.bytes());
                  check(address, stream.bytes(), FrameInputs.pieces(random, stream.bytes().length));
                });
        errors = log.unexpectedErrors();
      }
      assertThat(errors).as("errors logged").isEmpty();
      assertThat(OpenFiles.count()).as("open descriptors").isLessThanOrEqualTo(fdsBefore + 16);
    } finally {
      transport.shutdownNow();
    }
  }

  private void check(InetSocketAddress address, byte[] bytes, List<Integer> pieces)
      throws IOException, InterruptedException {
    FrameInputs.Expected expected = FrameInputs.expected(bytes, MAX);
    int badBefore = badFrames.get();
    try (RawConnection raw = RawConnection.open(address)) {
      try {
        int at = 0;
        for (int piece : pieces) {
          raw.write(java.util.Arrays.copyOfRange(bytes, at, at + piece));
          at += piece;
        }
      } catch (IOException closedByServer) {
        // Closed on the bad length before the rest was written.
      }
      if (expected.rejectedLength() != null) {
        assertThat(raw.awaitClosedBy(WITHIN)).as("bytes sent back").isEmpty();
      }
    }
    List<byte[]> frames = closed.poll(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(frames).as("the server saw the close within %s", WITHIN).isNotNull();
    assertThat(frames).as("frames").hasSameSizeAs(expected.frames());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(frames.get(i)).as("frame %d", i).isEqualTo(expected.frames().get(i));
    }
    assertThat(badFrames.get() - badBefore)
        .as("bad frames counted")
        .isEqualTo(expected.rejectedLength() == null ? 0 : 1);
  }

  /** Keeps each connection's frames; hands them over when it closes. */
  private final class Collector extends BaseFilter {
    @Override
    public NextAction handleRead(FilterChainContext ctx) {
      Buffer b = ctx.getMessage();
      byte[] copy = new byte[b.remaining()];
      b.get(copy);
      open.computeIfAbsent(ctx.getConnection(), c -> new ArrayList<>()).add(copy);
      return ctx.getStopAction();
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) {
      List<byte[]> frames = open.remove(ctx.getConnection());
      closed.add(frames == null ? List.of() : frames);
      return ctx.getStopAction();
    }
  }
}
