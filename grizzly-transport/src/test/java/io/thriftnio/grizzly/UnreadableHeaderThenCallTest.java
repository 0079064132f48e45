package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.fuzz.FuzzHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HexFormat;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Found by {@link GrizzlyServerFuzzTest} (SAME_THREAD, seed 820261122, input 3): a frame whose
 * message header cannot be read closes the connection, but a good call that arrived in the same
 * read was still run, its response dropped and the call not counted. The call after the bad frame
 * must not run, as on Netty.
 */
@Timeout(60)
class UnreadableHeaderThenCallTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final Duration WITHIN = Duration.ofSeconds(20);

  /** The fuzz input: a {@code fail} call with seven random bytes inserted before its header. */
  private static final byte[] UNREADABLE =
      HexFormat.of()
          .parseHex(
              "00000032ec26edd3ea06e380010001000000046661696c0000004608001bdd495a4a0b0102000000"
                  + "0c4a59324a2d7c6fdc9a7dd6b600");

  @ParameterizedTest
  @EnumSource(IoStrategy.class)
  void aCallAfterAnUnreadableHeaderIsNotRun(IoStrategy strategy) throws Exception {
    FuzzHandler handler = new FuzzHandler(64 * 1024);
    ThriftServer server =
        GrizzlyThriftServer.builder()
            .processor(new BenchService.Processor<>(handler))
            .protocol(PROTOCOL)
            .ioStrategy(strategy)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    try {
      ByteArrayOutputStream wire = new ByteArrayOutputStream();
      wire.writeBytes(UNREADABLE);
      wire.writeBytes(
          RawConnection.frame(
              RawConnection.encodeCall(
                  PROTOCOL,
                  "echo",
                  1,
                  new BenchService.echo_args(ByteBuffer.wrap(new byte[] {1})))));
      try (RawConnection raw = RawConnection.open(server.localAddress())) {
        raw.write(wire.toByteArray()); // one write: both frames usually arrive in one read
        assertThat(raw.awaitClosedBy(WITHIN)).as("bytes before the close").isEmpty();
      }
      long deadline = System.nanoTime() + WITHIN.toNanos();
      while (server.stats().openConnections() != 0) {
        assertThat(System.nanoTime()).as("closed within %s", WITHIN).isLessThan(deadline);
        Thread.sleep(10); // polling a counter
      }
      ServerStats stats = server.stats();
      assertThat(stats.badFrames()).as("%s", stats).isEqualTo(1);
      assertThat(handler.calls()).as("calls run after the bad frame").isZero();
      assertThat(stats.completedCalls()).as("%s", stats).isZero();
    } finally {
      server.close();
    }
  }
}
