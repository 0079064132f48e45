package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.conformance.Workers;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every buffer a real server allocates for its connections is released once it has closed: after
 * good calls, pipelining, every kind of bad input, overload, and a drain that gives up on queued
 * and running calls.
 */
@Timeout(60)
class ServerLeakTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final Duration WITHIN = Duration.ofSeconds(10);

  @ParameterizedTest
  @EnumSource(
      value = IoStrategy.class,
      names = {"SAME_THREAD", "WORKER"})
  void releasesEveryBufferWhateverThePeersDo(IoStrategy strategy) throws Exception {
    LeakTrackingAllocator alloc = new LeakTrackingAllocator();
    CountDownLatch blockedEntered = new CountDownLatch(1);
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public void sleep(int millis) throws io.thriftnio.testkit.gen.BenchError {
            if (millis == 60_000) {
              blockedEntered.countDown(); // blocks until the server interrupts it at close
            }
            super.sleep(millis);
          }
        };
    ThriftServer server =
        Workers.strategy(NettyThriftServer.builder(), strategy, 1, 2)
            .allocator(alloc)
            .processor(new BenchService.Processor<>(handler))
            .protocol(PROTOCOL)
            .ioThreads(1)
            .maxFrameSize(64 * 1024)
            .drainTimeout(Duration.ofMillis(200))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    InetSocketAddress address = server.localAddress();
    try {
      // Pipelined good calls.
      try (RawConnection raw = RawConnection.open(address)) {
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (int seq = 1; seq <= 20; seq++) {
          batch.write(frame("echo", seq, new BenchService.echo_args(Payloads.of(1000, seq))));
        }
        raw.write(batch.toByteArray());
        for (int seq = 1; seq <= 20; seq++) {
          raw.readFrame();
        }
      }
      // Bad input of every kind, each on its own connection.
      byte[] garbage = new byte[20];
      Arrays.fill(garbage, (byte) 0xEE);
      io.thriftnio.core.util.internal.Framing.encodeLength(16, garbage, 0);
      byte[] oversize = frame("echo", 1, new BenchService.echo_args(Payloads.of(70 * 1024, 1)));
      for (byte[] bad :
          new byte[][] {
            {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0}, // negative
            {0, 0, 0, 0}, // zero
            "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(),
            garbage,
            oversize
          }) {
        try (RawConnection raw = RawConnection.open(address)) {
          raw.write(bad);
          raw.awaitClosedBy(WITHIN);
        }
      }
      byte[] truncated =
          Arrays.copyOf(frame("echo", 1, new BenchService.echo_args(Payloads.of(100, 1))), 40);
      try (RawConnection raw = RawConnection.open(address)) {
        raw.write(truncated);
      }
      RawConnection reset = RawConnection.open(address);
      reset.write(truncated);
      reset.reset();

      if (strategy == IoStrategy.WORKER) {
        // One worker blocked, two calls queued, the rest refused as overloaded; the drain then
        // gives up: the queued calls never run and the running one is interrupted.
        RawConnection stuck = RawConnection.open(address);
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        batch.write(frame("sleep", 1, new BenchService.sleep_args(60_000)));
        for (int seq = 2; seq <= 5; seq++) {
          batch.write(frame("sleep", seq, new BenchService.sleep_args(1)));
        }
        stuck.write(batch.toByteArray());
        assertThat(blockedEntered.await(10, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while (server.stats().overloadedCalls() < 2) {
          assertThat(System.nanoTime()).as("overload within 10 s").isLessThan(deadline);
          Thread.sleep(5); // polling a counter
        }
      }
    } finally {
      server.close();
    }
    assertThat(server.stats().badFrames()).isGreaterThanOrEqualTo(5);
    assertThat(alloc.allocations()).isPositive();
    alloc.assertAllReleased();
  }

  private static byte[] frame(String method, int seq, org.apache.thrift.TBase<?, ?> args)
      throws Exception {
    return RawConnection.frame(RawConnection.encodeCall(PROTOCOL, method, seq, args));
  }
}
