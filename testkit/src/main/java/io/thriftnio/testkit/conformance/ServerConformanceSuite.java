package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TMultiplexedProcessor;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TMultiplexedProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link ConformanceSuite} plus the cases that reach the server without the cell's client kind:
 * raw bytes (pipelining, frame limits, idle and slow peers, drain on close), stock sockets (a
 * multiplexed processor) and the builder. What they check depends on the server setting alone, so a
 * transport's own matrix runs this suite, where every server setting is a cell; {@code
 * CrossConformanceTest}, which adds other client kinds to server rows those matrices already run,
 * runs the {@link ConformanceSuite} alone instead of repeating these cases once per client kind.
 */
public abstract class ServerConformanceSuite extends ConformanceSuite {

  @Test
  void answersAsyncCompletionsInRequestOrder() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server =
        start(
            newServerBuilder()
                .asyncProcessor(new BenchService.AsyncProcessor<>(new AsyncBenchHandler()))
                .protocol(protocol)
                .ioStrategy(strategy())
                .tls(serverTls())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    try (RawConnection raw = openRaw(server.localAddress())) {
      // sleep(300) completes long after echo would: the echo reply must still come second.
      byte[] slow =
          RawConnection.encodeCall(protocol, "sleep", 1, new BenchService.sleep_args(300));
      byte[] fast =
          RawConnection.encodeCall(
              protocol, "echo", 2, new BenchService.echo_args(Payloads.of(16, 2)));
      raw.write(concat(RawConnection.frame(slow), RawConnection.frame(fast)));
      TMessage first =
          RawConnection.decodeReply(protocol, raw.readFrame(), new BenchService.sleep_result());
      BenchService.echo_result echo = new BenchService.echo_result();
      TMessage second = RawConnection.decodeReply(protocol, raw.readFrame(), echo);
      assertThat(first.seqid).isEqualTo(1);
      assertThat(second.seqid).isEqualTo(2);
      assertThat(Payloads.check(echo.success, 16, 2)).isTrue();
    }
  }

  @Test
  void servesAMultiplexedProcessor() throws Exception {
    TProtocolFactory protocol = new TCompactProtocol.Factory();
    TMultiplexedProcessor multiplexed = new TMultiplexedProcessor();
    multiplexed.registerProcessor("bench", new BenchService.Processor<>(new BenchHandler()));
    ThriftServer server =
        start(
            newServerBuilder()
                .processor(multiplexed)
                .protocol(protocol)
                .ioStrategy(strategy())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    InetSocketAddress a = server.localAddress();
    TTransport transport =
        new TFramedTransport(new TSocket(a.getHostString(), a.getPort(), 30_000));
    transport.open();
    closeAfterTest(transport::close);
    BenchService.Client client =
        new BenchService.Client(new TMultiplexedProtocol(protocol.getProtocol(transport), "bench"));
    assertThat(client.get_last_sale("MUX").getSymbol()).isEqualTo("MUX");
    assertThat(client.db_work(2)).hasSize(2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void answersOneHundredPipelinedCallsInOrder(String name, TProtocolFactory protocol)
      throws Exception {
    ThriftServer server = sharedServer(protocol);
    try (RawConnection raw = openRaw(server.localAddress())) {
      java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
      for (int seq = 1; seq <= 100; seq++) {
        batch.write(
            RawConnection.frame(
                RawConnection.encodeCall(
                    protocol, "echo", seq, new BenchService.echo_args(Payloads.of(seq, seq)))));
      }
      raw.write(batch.toByteArray());
      for (int seq = 1; seq <= 100; seq++) {
        BenchService.echo_result result = new BenchService.echo_result();
        TMessage reply = RawConnection.decodeReply(protocol, raw.readFrame(), result);
        assertThat(reply.seqid).isEqualTo(seq);
        assertThat(reply.type).isEqualTo(TMessageType.REPLY);
        assertThat(Payloads.check(result.success, seq, seq)).isTrue();
      }
    }
  }

  @Test
  void acceptsExactlyMaxFrameSizeAndRejectsOneByteMore() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    byte[] probe =
        RawConnection.encodeCall(
            protocol,
            "fire",
            TMessageType.ONEWAY,
            1,
            new BenchService.fire_args(Payloads.of(0, 0)));
    int overhead = probe.length;
    int maxFrameSize = 64 * 1024;
    BenchHandler handler = new BenchHandler();
    ThriftServer server = start(builder(protocol, handler).maxFrameSize(maxFrameSize));

    byte[] exact =
        RawConnection.encodeCall(
            protocol,
            "fire",
            TMessageType.ONEWAY,
            1,
            new BenchService.fire_args(Payloads.of(maxFrameSize - overhead, 1)));
    assertThat(exact.length).isEqualTo(maxFrameSize);
    byte[] oneMore =
        RawConnection.encodeCall(
            protocol,
            "fire",
            TMessageType.ONEWAY,
            2,
            new BenchService.fire_args(Payloads.of(maxFrameSize - overhead + 1, 2)));
    assertThat(oneMore.length).isEqualTo(maxFrameSize + 1);

    try (RawConnection raw = openRaw(server.localAddress())) {
      raw.writeFrame(exact);
      await("the max-size frame to reach the handler")
          .atMost(CLOSE_WITHIN)
          .until(() -> handler.fired() == 1);
    }
    try (RawConnection raw = openRaw(server.localAddress())) {
      try {
        raw.writeFrame(oneMore);
      } catch (SocketException closedFirst) {
        // The server judges the length prefix and may close before the rest is written: over TLS
        // the frame goes out in 16 KiB records, and a write after the close fails.
      }
      raw.awaitClosedBy(CLOSE_WITHIN);
    }
    assertThat(handler.fired()).isEqualTo(1);
    assertThat(server.stats().badFrames()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void closesIdleConnections() throws Exception {
    ThriftServer server =
        start(
            builder(new TBinaryProtocol.Factory(), new BenchHandler())
                .idleTimeout(Duration.ofMillis(300)));
    try (RawConnection idle = openRaw(server.localAddress())) {
      idle.awaitClosedBy(CLOSE_WITHIN);
    }
    await("the idle close to be counted")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().timedOutConnections() >= 1);
  }

  @Test
  void closesSlowSendersThatNeverFinishAFrame() throws Exception {
    ThriftServer server =
        start(
            builder(new TBinaryProtocol.Factory(), new BenchHandler())
                .frameTimeout(Duration.ofMillis(300)));
    try (RawConnection slow = openRaw(server.localAddress())) {
      slow.write(new byte[] {0, 0, 1, 0, 1, 2}); // declares 256 bytes, sends 2
      slow.awaitClosedBy(CLOSE_WITHIN);
    }
  }

  @Test
  void closeLetsFiftyCallsInFlightFinishThenRefusesConnections() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    AtomicInteger started = new AtomicInteger();
    AsyncBenchHandler counting =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> cb) {
            started.incrementAndGet();
            super.sleep(millis, cb);
          }
        };
    ThriftServer server =
        start(
            newServerBuilder()
                .asyncProcessor(new BenchService.AsyncProcessor<>(counting))
                .protocol(protocol)
                .ioStrategy(strategy())
                .tls(serverTls())
                .drainTimeout(Duration.ofSeconds(30))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    InetSocketAddress address = server.localAddress();
    List<RawConnection> connections = new ArrayList<>();
    try {
      for (int i = 0; i < 50; i++) {
        RawConnection c = openRaw(address);
        connections.add(c);
        c.writeFrame(
            RawConnection.encodeCall(protocol, "sleep", i + 1, new BenchService.sleep_args(200)));
      }
      await("50 calls in flight").atMost(CLOSE_WITHIN).until(() -> started.get() == 50);
      server.close();
      for (int i = 0; i < 50; i++) {
        TMessage reply =
            RawConnection.decodeReply(
                protocol, connections.get(i).readFrame(), new BenchService.sleep_result());
        assertThat(reply.seqid).isEqualTo(i + 1);
      }
    } finally {
      for (RawConnection c : connections) {
        c.close();
      }
    }
    assertThat(server.isRunning()).isFalse();
    assertThatThrownBy(() -> openRaw(address).close()).isInstanceOf(ConnectException.class);
  }

  @Test
  void startAndCloseAreIdempotent() throws Exception {
    ThriftServer server = start(builder(new TBinaryProtocol.Factory(), new BenchHandler()));
    InetSocketAddress address = server.localAddress();
    assertThat(server.start()).isSameAs(server);
    assertThat(server.localAddress()).isEqualTo(address);
    assertThat(server.isRunning()).isTrue();
    server.close();
    server.close();
    assertThat(server.isRunning()).isFalse();
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void builderRejectsBadValuesWithTheirNumbers() {
    assertThatThrownBy(
            () ->
                builder(new TBinaryProtocol.Factory(), new BenchHandler()).maxFrameSize(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxFrameSize: -1 (expected: > 0)");
    assertThatThrownBy(
            () -> builder(new TBinaryProtocol.Factory(), new BenchHandler()).ioThreads(0).build())
        .hasMessageContaining("ioThreads: 0 (expected: > 0)");
    assertThatThrownBy(
            () ->
                newServerBuilder()
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("expected: exactly one of them");
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
