package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.AsyncCaller;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The async channel: pipelining, FIFO matching, timeouts, failure of pending calls, executors. */
@Timeout(30)
class NettyThriftChannelTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ExecutorService callbacks =
      Executors.newFixedThreadPool(2, r -> new Thread(r, "test-callbacks"));

  /** Callbacks that "silent" handlers hold instead of answering. */
  private final List<AsyncMethodCallback<Void>> held =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    // A handler that never calls back would hold its request's frame buffer forever.
    for (AsyncMethodCallback<Void> cb : held) {
      cb.onComplete(null);
    }
    callbacks.shutdownNow();
  }

  private ThriftServer server(BenchService.AsyncIface handler) throws Exception {
    ThriftServer server =
        NettyThriftServer.builder()
            .asyncProcessor(new BenchService.AsyncProcessor<>(handler))
            .ioStrategy(IoStrategy.WORKER)
            .ioThreads(1)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    closeables.add(server);
    return server.start();
  }

  private NettyThriftChannel connect(InetSocketAddress address) throws TTransportException {
    NettyThriftChannel ch =
        (NettyThriftChannel)
            NettyClientKinds.RESOURCES.openChannel(
                address, ClientOptions.builder().callbackExecutor(callbacks).build());
    closeables.add(ch);
    return ch;
  }

  private AsyncCaller<BenchService.Client> caller(NettyThriftChannel channel) {
    return AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, callbacks);
  }

  private static ByteBuffer encode(String method, int seqid, org.apache.thrift.TBase<?, ?> args)
      throws Exception {
    return ByteBuffer.wrap(RawConnection.encodeCall(PROTOCOL, method, seqid, args));
  }

  @Test
  void pipelinesManyCallsOnOneConnectionAndMatchesThemInOrder() throws Exception {
    NettyThriftChannel channel = connect(server(new AsyncBenchHandler()).localAddress());
    AsyncCaller<BenchService.Client> caller = caller(channel);
    List<CompletableFuture<ByteBuffer>> results = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ByteBuffer payload = Payloads.of(100 + i, i);
      results.add(caller.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
    }
    for (int i = 0; i < 200; i++) {
      assertThat(Payloads.check(results.get(i).get(20, TimeUnit.SECONDS), 100 + i, i))
          .as("call %d", i)
          .isTrue();
    }
    assertThat(channel.callsInFlight()).isZero();
  }

  @Test
  void completesOnTheCallersExecutorThroughAnAsyncIfaceProxy() throws Exception {
    NettyThriftChannel channel = connect(server(new AsyncBenchHandler()).localAddress());
    BenchService.AsyncIface iface =
        AsyncClients.asyncIface(
            BenchService.AsyncIface.class, channel, BenchService.Client::new, PROTOCOL, callbacks);
    CompletableFuture<String> thread = new CompletableFuture<>();
    iface.get_last_sale(
        "ACME",
        new AsyncMethodCallback<>() {
          @Override
          public void onComplete(io.thriftnio.testkit.gen.TradeReport response) {
            thread.complete(Thread.currentThread().getName() + ":" + response.getSymbol());
          }

          @Override
          public void onError(Exception e) {
            thread.completeExceptionally(e);
          }
        });
    assertThat(thread.get(10, TimeUnit.SECONDS)).isEqualTo("test-callbacks:ACME");

    // Hold both callback threads, so the future cannot complete before the stage is attached.
    CountDownLatch hold = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) {
      callbacks.execute(
          () -> {
            try {
              hold.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    CompletableFuture<String> raw = new CompletableFuture<>();
    channel
        .exchange(encode("get_last_sale", 1, new BenchService.get_last_sale_args("Z")))
        .whenComplete((r, e) -> raw.complete(Thread.currentThread().getName()));
    hold.countDown();
    assertThat(raw.get(10, TimeUnit.SECONDS)).isEqualTo("test-callbacks");
  }

  @Test
  void sendsOnewayMessagesWithoutWaitingForAReply() throws Exception {
    BenchHandler delegate = new BenchHandler();
    NettyThriftChannel channel = connect(server(new AsyncBenchHandler(delegate)).localAddress());
    AsyncCaller<BenchService.Client> caller = caller(channel);
    for (int i = 0; i < 3; i++) {
      ByteBuffer p = Payloads.of(50, i);
      caller.callOneway(c -> c.send_fire(p)).get(10, TimeUnit.SECONDS);
    }
    assertThat(channel.callsInFlight()).as("oneway calls wait for nothing").isZero();
    // WORKER runs the three calls on any worker, in any order: wait for all three to land.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (delegate.fired() < 3) {
      assertThat(System.nanoTime()).as("3 oneway calls delivered within 10 s").isLessThan(deadline);
      Thread.sleep(5); // polling the handler's counter
    }
    assertThat(
            caller
                .call(c -> c.send_fired(), BenchService.Client::recv_fired)
                .get(10, TimeUnit.SECONDS))
        .isEqualTo(3L);
    assertThat(delegate.firedBytes()).isEqualTo(150);
  }

  @Test
  void aTimedOutCallFailsAloneAndTheConnectionCarriesOnPastItsLateReply() throws Exception {
    CountDownLatch bothArrived = new CountDownLatch(2);
    AsyncBenchHandler silent =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> cb) {
            held.add(cb); // answered by the test
            bothArrived.countDown();
          }
        };
    ThriftServer server = server(silent);
    NettyThriftChannel channel = connect(server.localAddress());
    CompletableFuture<ByteBuffer> patient =
        channel.exchange(
            encode("sleep", 1, new BenchService.sleep_args(1)), Duration.ofSeconds(20));
    CompletableFuture<ByteBuffer> hasty =
        channel.exchange(
            encode("sleep", 2, new BenchService.sleep_args(1)), Duration.ofMillis(300));
    assertThat(bothArrived.await(10, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> hasty.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            CallTimeoutException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "no response to sleep from "
                          + server.localAddress()
                          + " within callTimeout 300 ms (2 calls were pending)");
            });
    assertThat(channel.isOpen()).isTrue();
    assertThat(channel.abandonedCalls()).isEqualTo(1);
    assertThat(patient).isNotDone();
    held.get(0).onComplete(null); // the patient call's reply
    held.get(1).onComplete(null); // the late reply: dropped
    assertThat(patient.get(10, TimeUnit.SECONDS)).isNotNull();
    ByteBuffer next =
        channel
            .exchange(encode("get_last_sale", 3, new BenchService.get_last_sale_args("Z")))
            .get(10, TimeUnit.SECONDS);
    byte[] reply = new byte[next.remaining()];
    next.get(reply);
    assertThat(
            RawConnection.decodeReply(PROTOCOL, reply, new BenchService.get_last_sale_result())
                .seqid)
        .isEqualTo(3); // its own reply, not the late one of seqid 2
    assertThat(channel.abandonedCalls()).isZero();
    assertThat(channel.callsInFlight()).isZero();
    held.clear();
  }

  @Test
  void closeFailsEveryPendingCallNamingPeerAndCount() throws Exception {
    AtomicInteger arrived = new AtomicInteger();
    CountDownLatch threeArrived = new CountDownLatch(3);
    AsyncBenchHandler silent =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> cb) {
            held.add(cb); // answers only after the test
            arrived.incrementAndGet();
            threeArrived.countDown();
          }
        };
    ThriftServer server = server(silent);
    NettyThriftChannel channel = connect(server.localAddress());
    List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      calls.add(channel.exchange(encode("sleep", i, new BenchService.sleep_args(1))));
    }
    assertThat(threeArrived.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(channel.callsInFlight()).isEqualTo(3);
    channel.close();
    for (CompletableFuture<ByteBuffer> call : calls) {
      assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("connection to " + server.localAddress())
          .hasMessageContaining("3 calls pending")
          .hasMessageContaining("the channel was closed");
    }
    assertThat(channel.callsInFlight()).isZero();
    channel.close(); // idempotent
  }

  @Test
  void aServerThatGoesAwayFailsPendingCalls() throws Exception {
    ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    closeables.add(ss);
    AtomicReference<java.net.Socket> accepted = new AtomicReference<>();
    Thread acceptor =
        new Thread(
            () -> {
              try {
                java.net.Socket s = ss.accept();
                accepted.set(s);
                s.getInputStream().read(); // a request arrived: hang up
                s.close();
              } catch (Exception e) {
                // test over
              }
            });
    acceptor.setDaemon(true);
    acceptor.start();
    InetSocketAddress address =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), ss.getLocalPort());
    NettyThriftChannel channel = connect(address);
    CompletableFuture<ByteBuffer> call =
        channel.exchange(encode("fired", 1, new BenchService.fired_args()));
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("closed with 1 calls pending")
        .hasMessageContaining("closed by the peer");
  }

  @Test
  void anUnknownMethodIsATApplicationExceptionNotAChannelFailure() throws Exception {
    NettyThriftChannel channel = connect(server(new AsyncBenchHandler()).localAddress());
    ByteBuffer unknown =
        ByteBuffer.wrap(
            RawConnection.encodeCall(
                PROTOCOL, "no_such_method", TMessageType.CALL, 5, new BenchService.fired_args()));
    ByteBuffer reply = channel.exchange(unknown).get(10, TimeUnit.SECONDS);
    assertThat(reply.remaining()).isPositive();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void refusesANonPositiveTimeoutWithoutThrowing() throws Exception {
    NettyThriftChannel channel = connect(server(new AsyncBenchHandler()).localAddress());
    CompletableFuture<ByteBuffer> f =
        channel.exchange(encode("fired", 1, new BenchService.fired_args()), Duration.ZERO);
    assertThatThrownBy(() -> f.get(1, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout: PT0S (expected: > 0)");
  }

  @Test
  void worksWithASyncProcessorServerToo() throws Exception {
    ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioStrategy(IoStrategy.SAME_THREAD)
            .ioThreads(1)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    closeables.add(server);
    NettyThriftChannel channel = connect(server.localAddress());
    assertThat(
            caller(channel)
                .call(c -> c.send_get_last_sale("S"), BenchService.Client::recv_get_last_sale)
                .get(10, TimeUnit.SECONDS)
                .getSymbol())
        .isEqualTo("S");
  }

  @Test
  void anOversizeRequestFailsAloneAndTheChannelStaysUsable() throws Exception {
    ThriftServer server = server(new AsyncBenchHandler());
    NettyThriftChannel channel =
        (NettyThriftChannel)
            NettyClientKinds.RESOURCES.openChannel(
                server.localAddress(),
                ClientOptions.builder().callbackExecutor(callbacks).maxFrameSize(1024).build());
    closeables.add(channel);
    CompletableFuture<ByteBuffer> big =
        channel.exchange(encode("echo", 1, new BenchService.echo_args(Payloads.of(2000, 1))));
    assertThatThrownBy(() -> big.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(io.thriftnio.core.util.internal.FrameSizeException.class)
        .hasMessageContaining("exceeds maxFrameSize 1024");
    assertThat(channel.isOpen()).isTrue();
    assertThat(
            caller(channel)
                .call(c -> c.send_get_last_sale("ok"), BenchService.Client::recv_get_last_sale)
                .get(10, TimeUnit.SECONDS)
                .getSymbol())
        .isEqualTo("ok");
  }

  @Test
  void aCallBeyondMaxPendingCallsFailsAtOnceAndTheChannelStaysUsable() throws Exception {
    CountDownLatch bothArrived = new CountDownLatch(2);
    AsyncBenchHandler silent =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> cb) {
            held.add(cb); // answered by the test
            bothArrived.countDown();
          }
        };
    ThriftServer server = server(silent);
    NettyThriftChannel channel =
        (NettyThriftChannel)
            NettyClientKinds.RESOURCES.openChannel(
                server.localAddress(),
                ClientOptions.builder()
                    .callbackExecutor(callbacks)
                    .maxCallsInFlightPerConnection(2)
                    .build());
    closeables.add(channel);
    CompletableFuture<ByteBuffer> first =
        channel.exchange(encode("sleep", 1, new BenchService.sleep_args(1)));
    CompletableFuture<ByteBuffer> second =
        channel.exchange(encode("sleep", 2, new BenchService.sleep_args(1)));
    CompletableFuture<ByteBuffer> third =
        channel.exchange(encode("sleep", 3, new BenchService.sleep_args(1)));

    assertThat(third).isCompletedExceptionally(); // refused before anything was queued
    assertThatThrownBy(third::join)
        .cause()
        .isInstanceOfSatisfying(
            io.thriftnio.core.util.internal.TooManyCallsInFlightException.class,
            e -> {
              assertThat(e.getMessage())
                  .startsWith("pending calls: 2 (limit: 2) to " + server.localAddress());
              assertThat(e.callsInFlight()).isEqualTo(2);
              assertThat(e.maxCallsInFlightPerConnection()).isEqualTo(2);
            });
    assertThat(channel.isOpen()).isTrue();
    assertThat(channel.callsInFlight()).isEqualTo(2);
    assertThat(bothArrived.await(10, TimeUnit.SECONDS)).as("two calls reached the server").isTrue();

    for (AsyncMethodCallback<Void> cb : held) {
      cb.onComplete(null);
    }
    held.clear();
    first.get(10, TimeUnit.SECONDS);
    second.get(10, TimeUnit.SECONDS);
    assertThat(
            caller(channel)
                .call(c -> c.send_get_last_sale("after"), BenchService.Client::recv_get_last_sale)
                .get(10, TimeUnit.SECONDS)
                .getSymbol())
        .isEqualTo("after");
  }

  @Test
  void maxCallsInFlightPerConnectionIsValidatedAtBuild() {
    InetSocketAddress nowhere = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
    assertThatThrownBy(
            () ->
                NettyClientKinds.RESOURCES.openChannel(
                    nowhere, ClientOptions.builder().maxCallsInFlightPerConnection(0).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxCallsInFlightPerConnection: 0 (expected: > 0)");
  }

  @Test
  void aResponseAboveMaxFrameSizeFailsTheCallAndClosesTheChannel() throws Exception {
    ThriftServer server = server(new AsyncBenchHandler());
    NettyThriftChannel channel =
        (NettyThriftChannel)
            NettyClientKinds.RESOURCES.openChannel(
                server.localAddress(),
                ClientOptions.builder().callbackExecutor(callbacks).maxFrameSize(1000).build());
    closeables.add(channel);
    // db_work(100) answers far more than 1000 bytes for a request far below.
    CompletableFuture<ByteBuffer> big =
        channel.exchange(encode("db_work", 1, new BenchService.db_work_args(100)));
    assertThatThrownBy(() -> big.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("exceeds maxFrameSize 1000")
        .hasMessageContaining("1 calls pending");
    assertThat(channel.isOpen()).isFalse();
  }
}
