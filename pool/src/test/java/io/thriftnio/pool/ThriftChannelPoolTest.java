package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThriftChannelPoolTest {

  private final Queue<SocketThriftChannel> channels = new ConcurrentLinkedQueue<>();

  private ThriftChannelPool<BenchService.Client> pool(
      java.net.InetSocketAddress endpoint, PoolConfig config, int maxInFlight) {
    return PoolSettings.with(
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(
                    ChannelIo.of(
                        e -> {
                          SocketThriftChannel c = SocketThriftChannel.connect(e);
                          channels.add(c);
                          return c;
                        }))
                .endpoints(endpoint),
            config)
        .maxCallsInFlightPerConnection(maxInFlight)
        .build();
  }

  @Test
  void everyBenchMethodThroughCallAndAsyncIface() throws Exception {
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftChannelPool<BenchService.Client> pool =
            pool(server.address(), PoolConfig.defaults(), 8)) {
      ByteBuffer payload = Payloads.of(Payloads.MEDIUM, 11);
      CompletableFuture<ByteBuffer> echoed =
          pool.call(c -> c.send_echo(payload.duplicate()), BenchService.Client::recv_echo);
      assertThat(echoed.get(10, TimeUnit.SECONDS)).isEqualTo(payload);
      CompletableFuture<TradeReport> sale =
          pool.call(c -> c.send_get_last_sale("Q"), BenchService.Client::recv_get_last_sale);
      assertThat(sale.get(10, TimeUnit.SECONDS).getSymbol()).isEqualTo("Q");
      pool.callOneway(c -> c.send_fire(payload.duplicate())).get(10, TimeUnit.SECONDS);

      BenchService.AsyncIface iface = pool.asyncIface(BenchService.AsyncIface.class);
      ThriftAsyncClientPoolTest.Callback<Nested> nested =
          new ThriftAsyncClientPoolTest.Callback<>();
      iface.get_nested(3, nested);
      assertThat(nested.get(10, TimeUnit.SECONDS)).isEqualTo(BenchHandler.nested(3));
      ThriftAsyncClientPoolTest.Callback<List<io.thriftnio.testkit.gen.TestInfo>> rows =
          new ThriftAsyncClientPoolTest.Callback<>();
      iface.db_work(10, rows);
      assertThat(rows.get(10, TimeUnit.SECONDS)).hasSize(10);
      ThriftAsyncClientPoolTest.Callback<Void> slept = new ThriftAsyncClientPoolTest.Callback<>();
      iface.sleep(1, slept);
      slept.get(10, TimeUnit.SECONDS);
      ThriftAsyncClientPoolTest.Callback<Long> fired = new ThriftAsyncClientPoolTest.Callback<>();
      iface.fired(fired);
      assertThat(fired.get(10, TimeUnit.SECONDS)).isEqualTo(1L);

      ThriftAsyncClientPoolTest.Callback<Void> failed = new ThriftAsyncClientPoolTest.Callback<>();
      iface.fail(3, "declared", failed);
      assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(BenchError.class);
      // A declared exception is a whole reply: the shared connection stays.
      assertThat(pool.stats().created()).isEqualTo(1);
      assertThat(pool.stats().invalidated()).isZero();
    }
  }

  @Test
  void maxInFlightPerConnectionAndConnectionLimitHold() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(3)
            .maxIdlePerEndpoint(3)
            .borrowTimeout(Duration.ofSeconds(20))
            .build();
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftChannelPool<BenchService.Client> pool = pool(server.address(), config, 4)) {
      Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 40; t++) {
        Thread thread =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < 5; i++) {
                      pool.<Void>call(
                              c -> c.send_sleep(2),
                              c -> {
                                c.recv_sleep();
                                return null;
                              })
                          .get(20, TimeUnit.SECONDS);
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                  }
                });
        thread.start();
        threads.add(thread);
      }
      for (Thread t : threads) {
        t.join(25_000);
      }
      assertThat(errors).isEmpty();
      assertThat(channels).hasSizeLessThanOrEqualTo(3);
      for (SocketThriftChannel c : channels) {
        assertThat(c.maxPending.get()).isBetween(1, 4);
      }
      assertThat(pool.stats().borrowed()).isEqualTo(200);
      assertThat(pool.callsInFlight()).isZero();
    }
  }

  @Test
  void wrongSequenceIdFailsTheCallAndClosesTheConnection() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            pool(peer.address(), PoolConfig.defaults(), 8)) {
      CompletableFuture<Long> ok = pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThat(ok.get(10, TimeUnit.SECONDS)).isZero();
      peer.mode = StubPeer.Mode.WRONG_SEQID;
      CompletableFuture<Long> wrong =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThatThrownBy(() -> wrong.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.BAD_SEQUENCE_ID))
          .hasMessageContaining("out of sequence response from 127.0.0.1:");
      assertThat(pool.stats().invalidated()).isEqualTo(1);
      assertThat(pool.stats().total()).isZero();
      assertThat(channels.peek().isOpen()).isFalse();
      peer.mode = StubPeer.Mode.NORMAL;
      CompletableFuture<Long> again =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThat(again.get(10, TimeUnit.SECONDS)).isZero();
    }
  }

  private static final PoolConfig ONE_CONNECTION =
      PoolConfig.builder()
          .maxPerEndpoint(1)
          .maxIdlePerEndpoint(1)
          .borrowTimeout(Duration.ofSeconds(10))
          .build();

  @Test
  void anOversizedRequestFailsAloneAndItsConnectionKeepsTheOtherCalls() throws Exception {
    int maxFrameSize = 4096;
    CountDownLatch replies = new CountDownLatch(1);
    try (StubPeer peer = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(
                            ChannelIo.of(
                                e -> {
                                  SocketThriftChannel c =
                                      SocketThriftChannel.connect(e, maxFrameSize);
                                  channels.add(c);
                                  return c;
                                }))
                        .endpoints(peer.address()),
                    ONE_CONNECTION)
                .maxCallsInFlightPerConnection(8)
                .build()) {
      peer.replyGate = replies;
      List<CompletableFuture<ByteBuffer>> inFlight = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        ByteBuffer payload = Payloads.of(100, i);
        inFlight.add(pool.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
      }
      // The first call connects off this thread; the three go out once the connection is open.
      await("pool.callsInFlight() == 3").until(() -> pool.callsInFlight() == 3);

      CompletableFuture<ByteBuffer> oversized =
          pool.call(
              c -> c.send_echo(ByteBuffer.allocate(maxFrameSize + 1)),
              BenchService.Client::recv_echo);
      assertThatThrownBy(() -> oversized.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              FrameSizeException.class, e -> assertThat(e.maxFrameSize()).isEqualTo(maxFrameSize));

      // The other calls are still on the same, open connection, and get their replies.
      assertThat(inFlight).noneMatch(CompletableFuture::isDone);
      assertThat(pool.callsInFlight()).isEqualTo(3);
      assertThat(channels).hasSize(1);
      assertThat(channels.peek().isOpen()).isTrue();
      replies.countDown();
      for (int i = 0; i < inFlight.size(); i++) {
        assertThat(Payloads.check(inFlight.get(i).get(10, TimeUnit.SECONDS), 100, i))
            .as("call %d", i)
            .isTrue();
      }
      assertThat(pool.stats().invalidated()).isZero();
      assertThat(pool.stats().destroyed()).isZero();
      assertThat(pool.stats().total()).isEqualTo(1);
      CompletableFuture<Long> next =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThat(next.get(10, TimeUnit.SECONDS)).isZero();
      assertThat(pool.stats().created()).isEqualTo(1);
    }
  }

  @Test
  void aRequestRefusedWithIllegalArgumentFailsAloneAndKeepsTheConnection() throws Exception {
    CountDownLatch replies = new CountDownLatch(1);
    try (StubPeer peer = StubPeer.start();
        MultiplexedPool pool =
            new MultiplexedPool(
                "test",
                List.of(peer.address()),
                ONE_CONNECTION,
                PoolMetrics.NONE,
                e -> {
                  SocketThriftChannel c = SocketThriftChannel.connect(e);
                  channels.add(c);
                  return c;
                },
                new TBinaryProtocol.Factory(),
                null,
                8)) {
      peer.replyGate = replies;
      CompletableFuture<ByteBuffer> first = pool.exchange(firedRequest());
      CompletableFuture<ByteBuffer> refused = pool.exchange(firedRequest(), Duration.ZERO);
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(IllegalArgumentException.class);

      assertThat(first).isNotDone();
      assertThat(channels.peek().isOpen()).isTrue();
      replies.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS).remaining()).isPositive();
      assertThat(pool.stats().invalidated()).isZero();
      assertThat(pool.stats().total()).isEqualTo(1);
    }
  }

  @Test
  void aCallRefusedByTheChannelsPendingLimitFailsAloneAndKeepsTheConnection() throws Exception {
    CountDownLatch replies = new CountDownLatch(1);
    try (StubPeer peer = StubPeer.start();
        MultiplexedPool pool =
            new MultiplexedPool(
                "test",
                List.of(peer.address()),
                ONE_CONNECTION,
                PoolMetrics.NONE,
                e -> {
                  SocketThriftChannel c = SocketThriftChannel.connect(e);
                  channels.add(c);
                  // A channel whose maxCallsInFlightPerConnection (1) is below the pool's
                  // maxInFlight (8).
                  return new SeqidRecorder(c) {
                    @Override
                    public CompletableFuture<ByteBuffer> exchange(
                        ByteBuffer request, Duration timeout) {
                      int pending = channel.callsInFlight();
                      return pending >= 1
                          ? CompletableFuture.failedFuture(
                              new io.thriftnio.core.util.internal.TooManyCallsInFlightException(
                                  pending, 1, channel.remoteAddress()))
                          : super.exchange(request, timeout);
                    }

                    @Override
                    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
                      return exchange(request, Duration.ofSeconds(10));
                    }
                  };
                },
                new TBinaryProtocol.Factory(),
                null,
                8)) {
      peer.replyGate = replies;
      CompletableFuture<ByteBuffer> first = pool.exchange(firedRequest());
      // The first call connects off this thread: the second goes out once the first is written.
      await("!channels.isEmpty() && channels.peek().callsInFlight() == 1")
          .until(() -> !channels.isEmpty() && channels.peek().callsInFlight() == 1);
      CompletableFuture<ByteBuffer> refused = pool.exchange(firedRequest());
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(io.thriftnio.core.util.internal.TooManyCallsInFlightException.class)
          .hasMessageContaining("pending calls: 1 (limit: 1)");

      assertThat(first).isNotDone();
      assertThat(channels.peek().isOpen()).isTrue();
      replies.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS).remaining()).isPositive();
      assertThat(pool.stats().invalidated()).isZero();
      assertThat(pool.stats().total()).isEqualTo(1);
    }
  }

  /** A {@code fired()} request, encoded as the generated client does. */
  private static ByteBuffer firedRequest() throws Exception {
    FrameOutputTransport out = FrameLength.output(new TConfiguration());
    TProtocol protocol = new TBinaryProtocol(out);
    new BenchService.Client(protocol, protocol).send_fired();
    return out.payload();
  }

  @Test
  void connectFailureMovesToAnotherEndpointAndIdleConnectionsAreEvicted() throws Exception {
    java.net.InetSocketAddress dead =
        new java.net.InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
    PoolConfig config =
        PoolConfig.builder()
            .idleConnections(
                IdleConnectionsConfig.builder()
                    .timeout(Duration.ofMillis(100))
                    .evictionInterval(Duration.ofMillis(50))
                    .build())
            .build();
    try (StubPeer live = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(
                            ChannelIo.of(
                                e -> {
                                  SocketThriftChannel c = SocketThriftChannel.connect(e);
                                  channels.add(c);
                                  return c;
                                }))
                        .endpoints(dead, live.address()),
                    config)
                .build()) {
      for (int i = 0; i < 10; i++) {
        CompletableFuture<Long> f = pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
        assertThat(f.get(10, TimeUnit.SECONDS)).isZero();
      }
      assertThat(pool.stats().connectFailures()).isGreaterThanOrEqualTo(1);
      // Every connection went to the live endpoint. (Usually one: a machine slow enough to leave
      // 100 ms between two calls lets the evictor close it, and the next call opens another.)
      assertThat(channels)
          .isNotEmpty()
          .allSatisfy(c -> assertThat(c.remoteAddress()).isEqualTo(live.address()));
      // The evictor takes them off the books, then closes them: wait for both.
      await("pool.stats().total() == 0 && pool.stats().destroyed() == pool.stats().created()")
          .until(
              () ->
                  pool.stats().total() == 0 && pool.stats().destroyed() == pool.stats().created());
      assertThat(channels).noneMatch(SocketThriftChannel::isOpen);
    }
  }

  @Test
  void exhaustedTimesOutAndCloseFailsLaterCalls() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowTimeout(Duration.ofMillis(200))
            .build();
    try (StubPeer peer = StubPeer.start()) {
      ThriftChannelPool<BenchService.Client> pool = pool(peer.address(), config, 1);
      peer.mode = StubPeer.Mode.STALL;
      CompletableFuture<Long> stuck =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      CompletableFuture<Long> refused =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(PoolTimeoutException.class)
          .hasMessageContaining("(total=1, active=1, idle=0, waiting=");
      pool.close();
      pool.close();
      assertThatThrownBy(() -> stuck.get(10, TimeUnit.SECONDS)).hasMessageContaining("closed");
      CompletableFuture<Long> late =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThatThrownBy(() -> late.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("is closed");
      assertThat(pool.stats().total()).isZero();
    }
  }

  /** Passes everything to a channel and records the sequence id of every request. */
  private static class SeqidRecorder implements io.thriftnio.core.ThriftChannel {
    final io.thriftnio.core.ThriftChannel channel;
    final Queue<Integer> seqids = new ConcurrentLinkedQueue<>();

    SeqidRecorder(io.thriftnio.core.ThriftChannel channel) {
      this.channel = channel;
    }

    private ByteBuffer record(ByteBuffer request) {
      try {
        byte[] bytes = new byte[request.remaining()];
        request.duplicate().get(bytes);
        seqids.add(
            new TBinaryProtocol(new org.apache.thrift.transport.TMemoryInputTransport(bytes))
                .readMessageBegin()
                .seqid);
      } catch (org.apache.thrift.TException e) {
        throw new AssertionError(e);
      }
      return request;
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
      return channel.exchange(record(request));
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
      return channel.exchange(record(request), timeout);
    }

    @Override
    public CompletableFuture<Void> send(ByteBuffer request) {
      return channel.send(record(request));
    }

    @Override
    public int callsInFlight() {
      return channel.callsInFlight();
    }

    @Override
    public boolean isOpen() {
      return channel.isOpen();
    }

    @Override
    public java.net.SocketAddress remoteAddress() {
      return channel.remoteAddress();
    }

    @Override
    public void close() {
      channel.close();
    }
  }

  @Test
  void callAndEveryProxyShareOneSequenceOnAConnection() throws Exception {
    Queue<SeqidRecorder> recorders = new ConcurrentLinkedQueue<>();
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(
                    ChannelIo.of(
                        e -> {
                          SeqidRecorder r = new SeqidRecorder(SocketThriftChannel.connect(e));
                          recorders.add(r);
                          return r;
                        }))
                .endpoints(server.address())
                .maxPerEndpoint(1)
                .maxIdlePerEndpoint(1)
                .build()) {
      BenchService.AsyncIface first = pool.asyncIface(BenchService.AsyncIface.class);
      BenchService.AsyncIface second = pool.asyncIface(BenchService.AsyncIface.class);
      for (int i = 0; i < 3; i++) {
        pool.call(c -> c.send_get_last_sale("c"), BenchService.Client::recv_get_last_sale)
            .get(10, TimeUnit.SECONDS);
        ThriftAsyncClientPoolTest.Callback<TradeReport> a =
            new ThriftAsyncClientPoolTest.Callback<>();
        first.get_last_sale("a", a);
        a.get(10, TimeUnit.SECONDS);
        ThriftAsyncClientPoolTest.Callback<TradeReport> b =
            new ThriftAsyncClientPoolTest.Callback<>();
        second.get_last_sale("b", b);
        b.get(10, TimeUnit.SECONDS);
        pool.callOneway(c -> c.send_fire(ByteBuffer.wrap(new byte[] {1})))
            .get(10, TimeUnit.SECONDS);
      }
      assertThat(recorders).hasSize(1);
      assertThat(recorders.peek().seqids).hasSize(12).doesNotHaveDuplicates();
    }
  }
}
