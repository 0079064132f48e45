package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.testkit.AsyncCaller;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The sync transport's and the async channel's failure behaviour, against our own server. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GrizzlyClientsTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();

  /** Releases handlers blocked in {@code sleep}; counts down their starts. */
  private final CountDownLatch release = new CountDownLatch(1);

  private GrizzlyClientIo resources;
  private ThriftServer server;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    resources = GrizzlyClientIo.create();
    server =
        GrizzlyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BlockingSleepHandler()))
            .protocol(PROTOCOL)
            .ioStrategy(IoStrategy.WORKER)
            .workerThreads(8)
            .ioThreads(1)
            .drainTimeout(Duration.ofMillis(200))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
  }

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (AutoCloseable c : closeables) {
      c.close();
    }
    resources.close();
    server.close();
  }

  /** {@code sleep(n)} waits for the test's release latch instead of a clock. */
  private final class BlockingSleepHandler extends BenchHandler {
    @Override
    public void sleep(int millis) {
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A transport fed by Grizzly's selector thread, as over TLS, on a plain connection. */
  private GrizzlyFramedTransport queued(InetSocketAddress address) throws TTransportException {
    return (GrizzlyFramedTransport)
        ThriftClientFilter.transport(
            resources.connect(address, ClientOptions.defaults()), ClientOptions.defaults());
  }

  // ---- sync transport -------------------------------------------------------------------------

  @Test
  void syncTransportReadTimeoutFiresAndClosesTheTransportForGood() throws Exception {
    TTransport transport =
        resources.openTransport(
            server.localAddress(),
            ClientOptions.builder()
                .connectTimeout(Duration.ofSeconds(5))
                .callTimeout(Duration.ofMillis(200))
                .build());
    BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
    long start = System.nanoTime();
    assertThatThrownBy(() -> client.sleep(1))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.getMessage()).contains("200 ms").contains("closed");
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(transport.isOpen()).isFalse();
    release.countDown();
    // The late reply must never be read as the answer to a new call.
    assertThatThrownBy(() -> client.get_last_sale("late")).isInstanceOf(TTransportException.class);
    assertThatThrownBy(transport::open)
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN));
  }

  @Test
  void syncTransportFlushOnAnInterruptedThreadThrowsAndNeverSends() throws Exception {
    TTransport transport = resources.openTransport(server.localAddress());
    BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
    assertThat(client.get_last_sale("before").getSymbol()).isEqualTo("before");
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> client.send_get_last_sale("interrupted"))
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("interrupted");
      assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag kept").isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(transport.isOpen()).isFalse();
  }

  @Test
  void syncTransportEnforcesItsConfiguredFrameLimitBothWays() throws Exception {
    {
      TTransport transport =
          resources.openTransport(
              server.localAddress(), ClientOptions.builder().maxFrameSize(1024).build());
      closeables.add(transport::close);
      assertThat(transport.getConfiguration().getMaxFrameSize()).isEqualTo(1024);
      BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
      assertThat(client.db_work(1)).hasSize(1);
      // A request above the limit fails before anything is sent; the connection stays usable.
      assertThatThrownBy(() -> client.echo(Payloads.of(2000, 1)))
          .isInstanceOf(io.thriftnio.core.util.internal.FrameSizeException.class)
          .hasMessageContaining("1024");
      assertThat(client.db_work(2)).hasSize(2);
      // A response above the limit closes the connection instead of being read.
      assertThatThrownBy(() -> client.db_work(100))
          .isInstanceOfSatisfying(
              TTransportException.class,
              e -> {
                assertThat(e.getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
                assertThat(e.getMessage()).contains("exceeds maxFrameSize 1024");
              });
      assertThat(transport.isOpen()).isFalse();
    }
  }

  /**
   * The filter reports a connection's end (here an oversize response) before Grizzly has finished
   * closing it. A read that failed on that end must leave the transport closed at once: a pool
   * validating the connection right after the failed call must not find it open.
   */
  @Test
  void aReadThatFailedOnTheConnectionsEndLeavesTheTransportClosed() throws Exception {
    GrizzlyFramedTransport transport = queued(server.localAddress());
    closeables.add(transport::close);
    transport.onClosed(
        new io.thriftnio.core.util.internal.FrameSizeException(2000, 1024, server.localAddress()));
    assertThatThrownBy(() -> transport.read(new byte[4], 0, 4))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.CORRUPTED_DATA));
    assertThat(transport.isOpen()).isFalse();
  }

  /**
   * A socket server that reads one request frame, then sends {@code frames} frames of 8 bytes (one
   * answer and noise after it), and holds the connection open.
   */
  private InetSocketAddress floodingPeer(int frames) throws Exception {
    ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    closeables.add(ss);
    Thread t =
        new Thread(
            () -> {
              try (Socket s = ss.accept()) {
                java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
                in.readFully(new byte[in.readInt()]);
                java.io.DataOutputStream out =
                    new java.io.DataOutputStream(
                        new java.io.BufferedOutputStream(s.getOutputStream()));
                for (int i = 0; i < frames; i++) {
                  out.writeInt(8);
                  out.writeLong(i);
                }
                out.flush();
                while (in.read() >= 0) {
                  // hold the connection until the client closes it
                }
              } catch (Exception closed) {
                // the client or the test closed the connection: done
              }
            },
            "flooding-peer");
    t.setDaemon(true);
    t.start();
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), ss.getLocalPort());
  }

  @Test
  void syncTransportClosesOnFramesTheServerWasNotAskedFor() throws Exception {
    InetSocketAddress peer = floodingPeer(1000);
    GrizzlyFramedTransport transport = queued(peer);
    closeables.add(transport::close);
    transport.write(new byte[] {1, 2, 3, 4, 5}, 0, 5);
    transport.flush();
    byte[] answer = new byte[8];
    // The first frame answers the request; the second, unasked for, is a violation whether it
    // arrives before or after the first is read. Nothing beyond it is ever queued.
    assertThatThrownBy(
            () -> {
              transport.read(answer, 0, 8);
              transport.read(answer, 0, 8);
            })
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
              assertThat(e.getMessage())
                  .startsWith("protocol violation: a frame of 8 bytes arrived from " + peer)
                  .endsWith("; connection closed");
            });
    assertThatThrownBy(() -> transport.read(answer, 0, 8)).isInstanceOf(TTransportException.class);
  }

  @Test
  void aChannelResponseAboveMaxFrameSizeFailsTheCallNamingTheLimit() throws Exception {
    {
      GrizzlyThriftChannel channel =
          (GrizzlyThriftChannel)
              resources.openChannel(
                  server.localAddress(), ClientOptions.builder().maxFrameSize(1000).build());
      closeables.add(channel);
      AsyncCaller<BenchService.Client> caller =
          AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, Runnable::run);
      // db_work(100) answers far more than 1000 bytes for a request far below.
      CompletableFuture<Object> big =
          caller.call(c -> c.send_db_work(100), BenchService.Client::recv_db_work);
      assertThatThrownBy(() -> big.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("exceeds maxFrameSize 1000")
          .hasMessageContaining("1 calls pending");
      assertThat(channel.isOpen()).isFalse();
    }
  }

  @Test
  void maxCallsInFlightPerConnectionMustBePositive() {
    assertThatThrownBy(() -> ClientOptions.builder().maxCallsInFlightPerConnection(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxCallsInFlightPerConnection: 0 (expected: > 0)");
  }

  @Test
  void syncTransportConnectTimeoutFires() throws Exception {
    // A listener that never accepts, with its backlog filled: further SYNs go unanswered.
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = (InetSocketAddress) full.getLocalSocketAddress();
      List<AutoCloseable> fillers = new ArrayList<>();
      try {
        TTransportException timedOut = null;
        for (int attempt = 0; attempt < 8 && timedOut == null; attempt++) {
          try {
            TTransport t =
                resources.openTransport(
                    address,
                    ClientOptions.builder().connectTimeout(Duration.ofMillis(300)).build());
            fillers.add(t::close);
            Socket filler = new Socket();
            fillers.add(filler);
            try {
              filler.connect(address, 300);
            } catch (java.net.SocketTimeoutException queueFull) {
              // The backlog is full already: exactly the state the next attempt needs.
            }
          } catch (TTransportException e) {
            timedOut = e;
          }
        }
        assertThat(timedOut).as("a connect attempt timed out").isNotNull();
        assertThat(timedOut.getType()).isEqualTo(TTransportException.TIMED_OUT);
        assertThat(timedOut.getMessage()).contains("300 ms").contains(address.toString());
      } finally {
        for (AutoCloseable c : fillers) {
          c.close();
        }
      }
    }
  }

  @Test
  void syncTransportReportsARefusedConnection() throws Exception {
    InetSocketAddress closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = (InetSocketAddress) s.getLocalSocketAddress();
    }
    assertThatThrownBy(() -> resources.openTransport(closedPort))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN);
              assertThat(e.getMessage()).contains(closedPort.toString());
            });
  }

  // ---- async channel --------------------------------------------------------------------------

  @Test
  void channelCallTimeoutFailsThatCallAloneAndTheOthersCarryOn() throws Exception {
    GrizzlyThriftChannel channel =
        (GrizzlyThriftChannel)
            resources.openChannel(
                server.localAddress(),
                ClientOptions.builder()
                    .callTimeout(Duration.ofSeconds(20))
                    .callbackExecutor(Runnable::run)
                    .build());
    closeables.add(channel);
    AsyncCaller<BenchService.Client> caller =
        AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, Runnable::run);
    CompletableFuture<Object> blocked =
        caller.call(c -> c.send_sleep(1), GrizzlyClientsTest::recvSleep);
    CompletableFuture<Object> second =
        caller.call(c -> c.send_sleep(1), GrizzlyClientsTest::recvSleep);
    CompletableFuture<ByteBuffer> timed =
        channel.exchange(ByteBuffer.wrap(encodeEcho(3)), Duration.ofMillis(200));
    assertThatThrownBy(() -> timed.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            CallTimeoutException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "no response to echo from "
                          + server.localAddress()
                          + " within callTimeout 200 ms (3 calls were pending)");
            });
    assertThat(channel.isOpen()).isTrue();
    assertThat(blocked).isNotDone();
    assertThat(second).isNotDone();
    release.countDown(); // the sleeps answer, then the late echo reply, which is dropped
    assertThat(blocked.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(second.get(10, TimeUnit.SECONDS)).isNull();
    ByteBuffer reply = channel.exchange(ByteBuffer.wrap(encodeEcho(4))).get(10, TimeUnit.SECONDS);
    assertThat(reply).isNotNull();
    assertThat(channel.abandonedCalls()).isZero();
    assertThat(channel.callsInFlight()).isZero();
  }

  @Test
  void channelFailsPendingCallsNamingPeerAndCountWhenTheConnectionDies() throws Exception {
    try (ServerSocket peer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = (InetSocketAddress) peer.getLocalSocketAddress();
      GrizzlyThriftChannel channel = (GrizzlyThriftChannel) resources.openChannel(address);
      closeables.add(channel);
      Socket accepted = peer.accept();
      closeables.add(accepted);
      {
        List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          calls.add(channel.exchange(ByteBuffer.wrap(encodeEcho(i))));
        }
        // Wait until the three requests have reached the peer, then hang up without answering.
        InputStream in = accepted.getInputStream();
        int expected = 3 * (4 + encodeEcho(0).length);
        in.readNBytes(expected);
        assertThat(channel.callsInFlight()).isEqualTo(3);
        accepted.close();
        for (CompletableFuture<ByteBuffer> call : calls) {
          assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
              .cause()
              .isInstanceOf(TTransportException.class)
              .hasMessageContaining(String.valueOf(address.getPort()))
              .hasMessageContaining("3 calls pending");
        }
      }
    }
  }

  @Test
  void channelCompletesOnTheChosenExecutorAndSendsOnewayWithoutAResponse() throws Exception {
    ExecutorService callbacks =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "chosen-callback-thread"));
    try {
      GrizzlyThriftChannel channel =
          (GrizzlyThriftChannel)
              resources.openChannel(
                  server.localAddress(),
                  ClientOptions.builder()
                      .callTimeout(Duration.ofSeconds(10))
                      .callbackExecutor(callbacks)
                      .build());
      closeables.add(channel);
      AtomicReference<String> thread = new AtomicReference<>();
      // Hold the single callback thread so the reply cannot complete before the stage is attached.
      CountDownLatch gate = new CountDownLatch(1);
      callbacks.execute(
          () -> {
            try {
              gate.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      CompletableFuture<ByteBuffer> exchange =
          channel
              .exchange(ByteBuffer.wrap(encodeEcho(7)))
              .whenComplete((r, e) -> thread.set(Thread.currentThread().getName()));
      gate.countDown();
      ByteBuffer reply = exchange.get(10, TimeUnit.SECONDS);
      assertThat(thread.get()).isEqualTo("chosen-callback-thread");
      assertThat(reply.remaining()).isPositive();

      AsyncCaller<BenchService.Client> caller =
          AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, callbacks);
      caller.callOneway(c -> c.send_fire(Payloads.of(10, 1))).get(10, TimeUnit.SECONDS);
      assertThat(channel.callsInFlight()).as("oneway takes no place in the queue").isZero();
      // The server runs calls under WORKER: fired() may overtake the oneway on another worker, so
      // ask until the oneway has run (a oneway sent and never run would fail here after 10 s).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      long fired;
      while ((fired =
                  caller
                      .call(c -> c.send_fired(), BenchService.Client::recv_fired)
                      .get(10, TimeUnit.SECONDS))
              == 0
          && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(fired).isEqualTo(1L);
    } finally {
      callbacks.shutdownNow();
    }
  }

  @Test
  void aLateResponseToATimedOutCallIsNeverHandedToTheNextCall() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = (InetSocketAddress) listener.getLocalSocketAddress();
      // Direct completion: the timed-out call's failure callback runs inside the timeout handling.
      GrizzlyThriftChannel channel =
          (GrizzlyThriftChannel)
              resources.openChannel(
                  address,
                  ClientOptions.builder()
                      .callTimeout(Duration.ofSeconds(20))
                      .callbackExecutor(Runnable::run)
                      .build());
      closeables.add(channel);
      Socket peer = listener.accept();
      closeables.add(peer);
      CompletableFuture<ByteBuffer> timedOut =
          channel.exchange(ByteBuffer.wrap(encodeEcho(1)), Duration.ofMillis(200));
      CompletableFuture<ByteBuffer> next = channel.exchange(ByteBuffer.wrap(encodeEcho(2)));
      // A call made from the timed-out call's failure callback joins the same connection.
      CompletableFuture<CompletableFuture<ByteBuffer>> retry =
          timedOut.handle(
              (r, failure) -> channel.exchange(ByteBuffer.wrap(encodeEchoUnchecked(3))));
      assertThatThrownBy(() -> timedOut.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(CallTimeoutException.class);
      // The peer answers in order: the late reply first, then the next call's and the retry's.
      peer.getOutputStream().write(RawConnection.frame("late reply".getBytes()));
      peer.getOutputStream().write(RawConnection.frame("reply 2".getBytes()));
      peer.getOutputStream().write(RawConnection.frame("reply 3".getBytes()));
      peer.getOutputStream().flush();
      assertThat(text(next.get(10, TimeUnit.SECONDS))).isEqualTo("reply 2");
      assertThat(text(retry.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)))
          .isEqualTo("reply 3");
      assertThat(channel.isOpen()).isTrue();
      assertThat(channel.abandonedCalls()).isZero();
      assertThat(channel.callsInFlight()).isZero();
    }
  }

  private static String text(ByteBuffer b) {
    return java.nio.charset.StandardCharsets.US_ASCII.decode(b.duplicate()).toString();
  }

  @Test
  void answeredCallsLeaveOneTimerTaskPerConnectionNotOneEach() throws Exception {
    GrizzlyThriftChannel channel =
        (GrizzlyThriftChannel)
            resources.openChannel(
                server.localAddress(),
                ClientOptions.builder().callTimeout(Duration.ofHours(1)).build());
    closeables.add(channel);
    for (int i = 1; i <= 50; i++) {
      assertThat(channel.exchange(ByteBuffer.wrap(encodeEcho(i))).get(10, TimeUnit.SECONDS))
          .isNotNull();
    }
    // At most one task, armed for the earliest deadline of the connection's calls: with an
    // hour's timeout per call, a task left per call would keep 50 here.
    assertThat(((java.util.concurrent.ScheduledThreadPoolExecutor) resources.timer()).getQueue())
        .as("timer tasks after 50 answered calls")
        .hasSizeLessThanOrEqualTo(1);
  }

  @Test
  void aShutDownTimerFailsTheCallInsteadOfThrowingFromExchange() throws Exception {
    GrizzlyThriftChannel channel =
        (GrizzlyThriftChannel) resources.openChannel(server.localAddress());
    closeables.add(channel);
    resources.timer().shutdown();
    CompletableFuture<ByteBuffer> call = channel.exchange(ByteBuffer.wrap(encodeEcho(1)));
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN);
              assertThat(e.getMessage()).contains(server.localAddress().toString());
            });
    assertThat(channel.callsInFlight()).as("nothing left waiting for an untimed reply").isZero();
  }

  @Test
  void channelFuturesCompleteOffTheIoThreadByDefault() throws Exception {
    GrizzlyThriftChannel channel =
        (GrizzlyThriftChannel) resources.openChannel(server.localAddress());
    closeables.add(channel);
    AtomicReference<Thread> completedOn = new AtomicReference<>();
    // sleep() waits for the release latch, so the stage is attached before the reply exists.
    CompletableFuture<ByteBuffer> call =
        channel
            .exchange(ByteBuffer.wrap(encodeSleep(1)))
            .whenComplete((r, e) -> completedOn.set(Thread.currentThread()));
    release.countDown();
    call.get(10, TimeUnit.SECONDS);
    assertThat(completedOn.get()).isInstanceOf(java.util.concurrent.ForkJoinWorkerThread.class);
    assertThat(((java.util.concurrent.ForkJoinWorkerThread) completedOn.get()).getPool())
        .isSameAs(java.util.concurrent.ForkJoinPool.commonPool());
  }

  @Test
  void aClosedSyncTransportNeverReturnsAResponseQueuedBeforeTheClose() throws Exception {
    GrizzlyFramedTransport transport = queued(server.localAddress());
    assertThat(transport.remoteAddress()).isEqualTo(server.localAddress());
    // A reply the IO thread queued just before a timeout closed the transport.
    transport.onFrame(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
    transport.close();
    assertThatThrownBy(() -> transport.read(new byte[4], 0, 4))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN);
              assertThat(e.getMessage()).contains(server.localAddress().toString());
            });
  }

  @Test
  void workerStrategyClientsServeTheSameCalls() throws Exception {
    try (GrizzlyClientIo worker = GrizzlyClientIo.create(1, IoStrategy.WORKER)) {
      TTransport t = worker.openTransport(server.localAddress());
      closeables.add(t::close);
      BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(t));
      assertThat(Payloads.check(client.echo(Payloads.of(Payloads.LARGE, 4)), Payloads.LARGE, 4))
          .isTrue();
      try (ThriftChannel channel = worker.openChannel(server.localAddress())) {
        BenchService.AsyncIface iface =
            AsyncClients.asyncIface(
                BenchService.AsyncIface.class,
                channel,
                BenchService.Client::new,
                PROTOCOL,
                Runnable::run);
        CompletableFuture<String> symbol = new CompletableFuture<>();
        iface.get_last_sale(
            "W",
            new org.apache.thrift.async.AsyncMethodCallback<>() {
              @Override
              public void onComplete(io.thriftnio.testkit.gen.TradeReport r) {
                symbol.complete(r.getSymbol());
              }

              @Override
              public void onError(Exception e) {
                symbol.completeExceptionally(e);
              }
            });
        assertThat(symbol.get(10, TimeUnit.SECONDS)).isEqualTo("W");
      }
    }
  }

  @Test
  void aClosedResourceHolderRefusesNewConnections() throws Exception {
    GrizzlyClientIo r = GrizzlyClientIo.create();
    closeables.add(r);
    r.close(); // and once more by the test's cleanup: idempotent
    assertThatThrownBy(() -> r.openChannel(server.localAddress()))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("closed");
  }

  private static Object recvSleep(BenchService.Client c) throws org.apache.thrift.TException {
    c.recv_sleep();
    return null;
  }

  private static byte[] encodeEchoUnchecked(int seq) {
    try {
      return encodeEcho(seq);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] encodeSleep(int seq) throws Exception {
    return RawConnection.encodeCall(PROTOCOL, "sleep", seq, new BenchService.sleep_args(1));
  }

  private static byte[] encodeEcho(int seq) throws Exception {
    return io.thriftnio.testkit.conformance.RawConnection.encodeCall(
        PROTOCOL, "echo", seq, new BenchService.echo_args(Payloads.of(16, seq)));
  }
}
