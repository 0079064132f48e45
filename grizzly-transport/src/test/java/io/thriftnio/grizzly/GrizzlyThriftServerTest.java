package io.thriftnio.grizzly;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Grizzly-specific server behaviour the shared conformance suite does not reach. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GrizzlyThriftServerTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final InetSocketAddress ANY_PORT =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch sleeping = new CountDownLatch(1);
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private ThriftServer started(GrizzlyThriftServer.Builder builder) throws IOException {
    ThriftServer server = builder.build();
    closeables.add(server);
    return server.start();
  }

  private RawConnection raw(ThriftServer server) throws IOException {
    RawConnection c = RawConnection.open(server.localAddress());
    closeables.add(c);
    return c;
  }

  /** {@code sleep(n)} signals {@link #sleeping} and waits for {@link #release}. */
  private final class BlockingSleepHandler extends BenchHandler {
    @Override
    public void sleep(int millis) {
      sleeping.countDown();
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static byte[] call(String method, int seq, org.apache.thrift.TBase<?, ?> args)
      throws Exception {
    return RawConnection.encodeCall(PROTOCOL, method, seq, args);
  }

  private static final Duration WITHIN = Duration.ofSeconds(10);

  private BenchService.Client stockClient(ThriftServer server) throws Exception {
    InetSocketAddress a = server.localAddress();
    TTransport t = new TFramedTransport(new TSocket(a.getHostString(), a.getPort(), 10_000));
    t.open();
    closeables.add(t::close);
    return new BenchService.Client(PROTOCOL.getProtocol(t));
  }

  @Test
  void theStartLineAndToStringNameTheIoTransportAndTheSettings() throws Exception {
    GrizzlyThriftServer.Builder builder =
        GrizzlyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .wireKinds(WireKind.FRAMED, WireKind.HTTP)
            .bind(ANY_PORT);
    ThriftServer server = started(builder);
    assertThat(GrizzlyServer.of(server).startLine())
        .startsWith(
            "Grizzly Thrift server listening on "
                + server.localAddress()
                + " (ioTransport=NIO, ServerConfig{bind=")
        .contains("wireKinds=[FRAMED, HTTP]");
    assertThat(server)
        .hasToString("GrizzlyThriftServer{" + server.localAddress() + ", NIO, WORKER}");
    assertThat(builder.bind(new InetSocketAddress("127.0.0.1", 9090)).build())
        .as("before start(): the configured address")
        .hasToString("GrizzlyThriftServer{/127.0.0.1:9090, NIO, WORKER}");
  }

  /** Decodes an exception reply, asserting its sequence id and type. */
  private static TApplicationException exceptionReply(byte[] payload, int seqid) throws Exception {
    TProtocol p = PROTOCOL.getProtocol(new TMemoryInputTransport(payload));
    TMessage header = p.readMessageBegin();
    assertThat(header.type).as("message type").isEqualTo(TMessageType.EXCEPTION);
    assertThat(header.seqid).as("seqid").isEqualTo(seqid);
    return TApplicationException.readFrom(p);
  }

  @ParameterizedTest
  @EnumSource(IoStrategy.class)
  void answersAStockClientsOversizeCallWithProtocolErrorThenCloses(IoStrategy strategy)
      throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .ioStrategy(strategy)
                .maxFrameSize(1024)
                .bind(ANY_PORT));
    int declared = call("echo", 1, new BenchService.echo_args(Payloads.of(2048, 1))).length;
    BenchService.Client client = stockClient(server);

    assertThatThrownBy(() -> client.echo(Payloads.of(2048, 1)))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
              assertThat(e.getMessage())
                  .contains("echo")
                  .contains("frame length " + declared)
                  .contains("exceeds maxFrameSize 1024");
            });
    assertThatThrownBy(() -> client.get_last_sale("after"))
        .as("the connection is closed after the reply")
        .isInstanceOf(TTransportException.class);
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(server.stats().failedCalls()).isEqualTo(1);
    assertThat(stockClient(server).get_last_sale("next").getSymbol()).isEqualTo("next");
  }

  @Test
  void anOversizeFrameIsAnsweredAfterTheSlowAsyncCallBeforeIt() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .asyncProcessor(new BenchService.AsyncProcessor<>(new AsyncBenchHandler()))
                .maxFrameSize(1024)
                .bind(ANY_PORT));
    RawConnection c = raw(server);
    c.write(
        concat(
            RawConnection.frame(call("sleep", 1, new BenchService.sleep_args(300))),
            RawConnection.frame(
                call("echo", 2, new BenchService.echo_args(Payloads.of(2048, 2))))));

    TMessage first =
        RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result());
    assertThat(first.seqid).as("the sleep reply comes first").isEqualTo(1);
    TApplicationException rejected = exceptionReply(c.readFrame(), 2);
    assertThat(rejected.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
    assertThat(rejected.getMessage()).contains("exceeds maxFrameSize 1024");
    assertThat(c.awaitClosedBy(WITHIN)).as("nothing after the error reply").isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  @Test
  void anOversizeFrameWhoseHeaderHasNotArrivedIsClosedWithoutAReply() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .maxFrameSize(1024)
                .bind(ANY_PORT));
    RawConnection c = raw(server);
    byte[] length = new byte[4];
    io.thriftnio.core.util.internal.Framing.encodeLength(1025, length, 0);
    c.write(length);
    assertThat(c.awaitClosedBy(WITHIN)).isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
    assertThat(server.stats().failedCalls()).isZero();
  }

  @Test
  void anOnewayOversizeFrameIsClosedWithoutAReply() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .maxFrameSize(1024)
                .bind(ANY_PORT));
    RawConnection c = raw(server);
    c.writeFrame(
        RawConnection.encodeCall(
            PROTOCOL,
            "fire",
            TMessageType.ONEWAY,
            1,
            new BenchService.fire_args(Payloads.of(2048, 1))));
    assertThat(c.awaitClosedBy(WITHIN)).isEmpty();
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  @Test
  void anHttpRequestIsClosedWithoutAReplyAndLittleAllocation() throws Exception {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        mx instanceof com.sun.management.ThreadMXBean
            && ((com.sun.management.ThreadMXBean) mx).isThreadAllocatedMemorySupported());
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .bind(ANY_PORT));
    RawConnection c = raw(server);
    long before = allocatedByAllThreads(threads);
    // "GET " is a length of 1,195,725,856; "/ HT" would be a 790 MB method name.
    c.write(
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(c.awaitClosedBy(WITHIN)).isEmpty();
    long allocated = allocatedByAllThreads(threads) - before;
    assertThat(allocated).as("bytes allocated by every thread").isLessThan(32L << 20);
    assertThat(server.stats().badFrames()).isEqualTo(1);
  }

  private static long allocatedByAllThreads(com.sun.management.ThreadMXBean threads) {
    long sum = 0;
    for (long a : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      sum += Math.max(0, a);
    }
    return sum;
  }

  @Test
  void aFullWorkerPoolIsAnsweredWithServerOverloaded() throws Exception {
    ThreadPoolExecutor callerPool =
        new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1));
    closeables.add(callerPool::shutdownNow);
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BlockingSleepHandler()))
                .ioStrategy(IoStrategy.WORKER)
                .workerExecutor(callerPool)
                .ioThreads(1)
                .drainTimeout(Duration.ofMillis(100))
                .bind(ANY_PORT));
    RawConnection busy = raw(server);
    busy.writeFrame(call("sleep", 1, new BenchService.sleep_args(1)));
    assertThat(sleeping.await(10, TimeUnit.SECONDS)).isTrue();
    RawConnection queued = raw(server);
    queued.writeFrame(call("get_last_sale", 2, new BenchService.get_last_sale_args("Q")));
    await("the second read event to wait in the caller's queue")
        .until(() -> callerPool.getQueue().size() == 1);

    RawConnection refused = raw(server);
    refused.writeFrame(call("get_last_sale", 3, new BenchService.get_last_sale_args("R")));
    assertThatThrownBy(
            () ->
                RawConnection.decodeReply(
                    PROTOCOL, refused.readFrame(), new BenchService.get_last_sale_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
              assertThat(e.getMessage()).contains("server overloaded").contains("get_last_sale");
            });
    assertThat(server.stats().overloadedCalls()).isEqualTo(1);
    assertThat(server.stats().failedCalls()).as("a refusal counts as overloaded only").isZero();

    release.countDown();
    assertThat(
            RawConnection.decodeReply(PROTOCOL, busy.readFrame(), new BenchService.sleep_result())
                .seqid)
        .isEqualTo(1);
    BenchService.get_last_sale_result q = new BenchService.get_last_sale_result();
    RawConnection.decodeReply(PROTOCOL, queued.readFrame(), q);
    assertThat(q.success.getSymbol()).isEqualTo("Q");
    // The refused connection stays usable once the pool has room.
    refused.writeFrame(call("get_last_sale", 4, new BenchService.get_last_sale_args("R2")));
    BenchService.get_last_sale_result r = new BenchService.get_last_sale_result();
    RawConnection.decodeReply(PROTOCOL, refused.readFrame(), r);
    assertThat(r.success.getSymbol()).isEqualTo("R2");
  }

  @Test
  void aFullWriteQueueStopsReadingUntilThePeerCatchesUpAndLosesNothing() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .ioStrategy(IoStrategy.SAME_THREAD)
                .ioThreads(1)
                .maxPendingWriteBytes(16 * 1024)
                .bind(ANY_PORT));
    int calls = 60;
    int size = 64 * 1024;
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int seq = 1; seq <= calls; seq++) {
      batch.write(
          RawConnection.frame(
              call("echo", seq, new BenchService.echo_args(Payloads.of(size, seq)))));
    }
    // A client with a tiny receive window that does not read at first: the server's responses
    // pile up in its write queue, far above the 16 KiB limit, so the server must stop reading
    // (the writer below then blocks) until the client reads, and then resume without loss.
    java.net.Socket socket = new java.net.Socket();
    closeables.add(socket);
    socket.setReceiveBufferSize(4096);
    socket.connect(server.localAddress(), 10_000);
    socket.setSoTimeout(20_000);
    java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
    Thread writer =
        new Thread(
            () -> {
              try {
                socket.getOutputStream().write(batch.toByteArray());
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            "pipelining-writer");
    writer.start();
    await("two responses to be queued for a client that is not reading")
        .until(() -> server.stats().completedCalls() >= 2);
    for (int seq = 1; seq <= calls; seq++) {
      byte[] frame = new byte[in.readInt()];
      in.readFully(frame);
      BenchService.echo_result result = new BenchService.echo_result();
      TMessage reply = RawConnection.decodeReply(PROTOCOL, frame, result);
      assertThat(reply.seqid).isEqualTo(seq);
      assertThat(Payloads.check(result.success, size, seq)).isTrue();
    }
    writer.join(10_000);
    assertThat(server.stats().completedCalls()).isEqualTo(calls);
  }

  @Test
  void refusedConnectionsAreLoggedAtPowersOfTwoWithTheRunningCount() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .protocol(PROTOCOL)
                .maxConnections(1)
                .bind(ANY_PORT));
    RawConnection admitted = raw(server);
    admitted.writeFrame(
        RawConnection.encodeCall(
            PROTOCOL, "echo", 1, new BenchService.echo_args(Payloads.of(8, 1))));
    admitted.readFrame(); // answered: it holds the only slot
    // slf4j-simple (configured by the build to log to System.out) resolves the stream per line.
    java.io.PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      for (int i = 0; i < 9; i++) {
        raw(server).awaitClosedBy(Duration.ofSeconds(10));
      }
    } finally {
      System.setOut(original);
    }
    List<String> warnings =
        captured
            .toString(java.nio.charset.StandardCharsets.UTF_8)
            .lines()
            .filter(line -> line.contains("Rejected connection"))
            .collect(java.util.stream.Collectors.toList());
    assertThat(warnings).hasSize(4);
    assertThat(warnings.get(0))
        .contains("maxConnections 1 reached")
        .contains("(1 rejected so far)");
    assertThat(warnings.get(1)).contains("(2 rejected so far)");
    assertThat(warnings.get(2)).contains("(4 rejected so far)");
    assertThat(warnings.get(3)).contains("(8 rejected so far)");
    assertThat(server.stats().rejectedConnections()).isEqualTo(9);
  }

  @Test
  void closeNeverWaitsLongerThanTheDrainTimeout() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BlockingSleepHandler()))
                .ioStrategy(IoStrategy.WORKER)
                .workerThreads(2)
                .drainTimeout(Duration.ofMillis(300))
                .bind(ANY_PORT));
    RawConnection stuck = raw(server);
    stuck.writeFrame(call("sleep", 1, new BenchService.sleep_args(1)));
    assertThat(sleeping.await(10, TimeUnit.SECONDS)).isTrue();
    long start = System.nanoTime();
    server.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(server.isRunning()).isFalse();
    stuck.awaitClosedBy(Duration.ofSeconds(10));
  }

  /**
   * The sweep finds the connection idle; before it closes it, a request arrives and its call
   * starts. The connection must stay open and the call be answered (issue 7: the sweep used to
   * close it, losing the call).
   */
  @Test
  void theIdleSweepNeverClosesAConnectionWhoseRequestArrivedAfterItLooked() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BlockingSleepHandler()))
                .ioStrategy(IoStrategy.WORKER)
                .idleTimeout(Duration.ofMinutes(1)) // the real clock never finds it idle
                .bind(ANY_PORT));
    BenchService.Client client = stockClient(server);
    ExecutorService caller = Executors.newSingleThreadExecutor();
    closeables.add(caller::shutdownNow);
    AtomicReference<Future<?>> call = new AtomicReference<>();
    GrizzlyServer.of(server).timeouts.beforeIdleClose =
        c -> {
          if (call.get() != null) {
            return;
          }
          call.set(
              caller.submit(
                  () -> {
                    client.sleep(1);
                    return null;
                  }));
          try {
            assertThat(sleeping.await(10, TimeUnit.SECONDS)).as("the call started").isTrue();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    long later = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (call.get() == null) { // until the server has accepted the connection
      GrizzlyServer.of(server).sweep(later);
      Thread.sleep(5);
    }
    release.countDown();
    call.get().get(10, TimeUnit.SECONDS);
    assertThat(server.stats().timedOutConnections()).isZero();
  }

  /**
   * A read has passed the idle check and holds a request on its way to the call path when the sweep
   * finds the connection idle (by a clock set ahead). The read in progress must keep the
   * connection: a call must not start on a connection already closed as idle, and the caller gets
   * its answer. Deterministic: the selector thread holds the request until the sweep is over.
   */
  @Test
  void anIdleSweepDuringTheReadOfARequestKeepsTheConnectionAndTheCall() throws Exception {
    AtomicInteger callsStarted = new AtomicInteger();
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(
                    new BenchService.Processor<>(
                        new BenchHandler() {
                          @Override
                          public ByteBuffer echo(ByteBuffer payload) {
                            callsStarted.incrementAndGet();
                            return super.echo(payload);
                          }
                        }))
                .ioStrategy(IoStrategy.SAME_THREAD)
                .idleTimeout(Duration.ofMinutes(1)) // the real clock never finds it idle
                .bind(ANY_PORT));
    BenchService.Client client = stockClient(server);
    ExecutorService timer = Executors.newSingleThreadExecutor();
    closeables.add(timer::shutdownNow);
    long later = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    AtomicInteger sweeps = new AtomicInteger();
    GrizzlyServer.of(server).serverFilter().beforeRequest =
        c -> {
          if (sweeps.getAndIncrement() == 0) {
            try {
              timer.submit(() -> GrizzlyServer.of(server).sweep(later)).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new AssertionError("the sweep did not run", e);
            }
          }
        };
    ByteBuffer answer = client.echo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    assertThat(answer).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    assertThat(sweeps.get()).as("sweeps run during the read").isEqualTo(1);
    assertThat(callsStarted.get()).isEqualTo(1);
    ServerStats stats = server.stats();
    assertThat(stats.timedOutConnections()).as("closed as idle").isZero();
    assertThat(stats.droppedResponses()).isZero();
    assertThat(client.echo(ByteBuffer.wrap(new byte[] {4})))
        .isEqualTo(ByteBuffer.wrap(new byte[] {4}));
  }

  @Test
  void anIdleTimeoutNeverClosesAConnectionWithACallInFlight() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .asyncProcessor(new BenchService.AsyncProcessor<>(new AsyncBenchHandler()))
                .ioStrategy(IoStrategy.SAME_THREAD)
                .idleTimeout(Duration.ofMillis(100))
                .bind(ANY_PORT));
    RawConnection c = raw(server);
    c.writeFrame(call("sleep", 9, new BenchService.sleep_args(600)));
    TMessage reply =
        RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result());
    assertThat(reply.seqid).isEqualTo(9);
    assertThat(server.stats().timedOutConnections()).isZero();
    c.awaitClosedBy(Duration.ofSeconds(10)); // idle after the reply: closed
    await("the idle close to be counted").until(() -> server.stats().timedOutConnections() == 1);
  }

  /**
   * {@code close()} on a Grizzly selector thread outside any call (here a client transport's
   * connect event) must not wait for the drain there, as on Netty's event loops: it returns at once
   * and a close thread finishes the drain once the call in flight is answered.
   */
  @Test
  void aCloseOnAGrizzlySelectorThreadHandsTheDrainToACloseThread() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BlockingSleepHandler()))
                .ioStrategy(IoStrategy.WORKER)
                .drainTimeout(Duration.ofSeconds(20))
                .bind(ANY_PORT));
    RawConnection busy = raw(server);
    busy.writeFrame(call("sleep", 1, new BenchService.sleep_args(1)));
    assertThat(sleeping.await(10, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<String> closedOn = new CompletableFuture<>();
    TCPNIOTransport client = TCPNIOTransportBuilder.newInstance().build();
    client.setIOStrategy(SameThreadIOStrategy.getInstance()); // events on the selector thread
    client.setProcessor(
        FilterChainBuilder.stateless()
            .add(new TransportFilter())
            .add(
                new BaseFilter() {
                  @Override
                  public NextAction handleConnect(FilterChainContext ctx) {
                    server.close();
                    closedOn.complete(Thread.currentThread().getName());
                    return ctx.getStopAction();
                  }
                })
            .build());
    client.start();
    closeables.add(client::shutdownNow);
    client.connect(server.localAddress());

    assertThat(closedOn.get(10, TimeUnit.SECONDS))
        .as("close() returned on the selector thread while a call was in flight")
        .contains("SelectorRunner");
    assertThat(server.isRunning()).isFalse();
    String closer = "thrift-nio-grizzly-server-close-" + server.localAddress().getPort();
    assertThat(Thread.getAllStackTraces().keySet()).anyMatch(t -> t.getName().equals(closer));
    release.countDown();
    RawConnection.decodeReply(PROTOCOL, busy.readFrame(), new BenchService.sleep_result());
    busy.awaitClosedBy(WITHIN);
    server.close(); // from the test thread: waits for the close thread to finish
    assertThat(server.stats().openConnections()).isZero();
  }

  @Test
  void aCallersTransportIsLeftRunningWhenTheServerDoesNotOwnIt() throws Exception {
    TCPNIOTransport transport = TCPNIOTransportBuilder.newInstance().build();
    closeables.add(transport::shutdownNow);
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .ioStrategy(IoStrategy.SAME_THREAD)
                .ioThreads(1)
                .ioTransport(transport, false)
                .bind(ANY_PORT));
    RawConnection c = raw(server);
    c.writeFrame(call("get_last_sale", 1, new BenchService.get_last_sale_args("T")));
    BenchService.get_last_sale_result r = new BenchService.get_last_sale_result();
    RawConnection.decodeReply(PROTOCOL, c.readFrame(), r);
    assertThat(r.success.getSymbol()).isEqualTo("T");
    server.close();
    c.awaitClosedBy(Duration.ofSeconds(10));
    assertThat(transport.isStopped()).as("caller's transport still running").isFalse();

    // The same transport can host another server.
    ThriftServer again =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .ioTransport(transport, true)
                .bind(ANY_PORT));
    RawConnection d = raw(again);
    d.writeFrame(call("get_last_sale", 2, new BenchService.get_last_sale_args("U")));
    RawConnection.decodeReply(PROTOCOL, d.readFrame(), r);
    assertThat(r.success.getSymbol()).isEqualTo("U");
    again.close();
    assertThat(transport.isStopped()).as("owned transport shut down").isTrue();
  }

  @Test
  void aFailedBindLeavesTheServerClosedAndItsThreadsStopped() throws Exception {
    ThriftServer first =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .bind(ANY_PORT));
    ThriftServer second =
        GrizzlyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .bind(first.localAddress())
            .build();
    closeables.add(second);
    assertThatThrownBy(second::start).isInstanceOf(IOException.class);
    assertThat(second.isRunning()).isFalse();
    assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class);
    second.close();
    assertThat(first.isRunning()).isTrue();
  }

  @Test
  void threadsAreNamedAfterTheLibrary() throws Exception {
    ThriftServer server =
        started(
            GrizzlyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .ioStrategy(IoStrategy.WORKER)
                .ioThreads(1)
                .bind(ANY_PORT));
    RawConnection c = raw(server);
    c.writeFrame(call("get_last_sale", 1, new BenchService.get_last_sale_args("N")));
    RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.get_last_sale_result());
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      names.add(t.getName());
    }
    assertThat(names)
        .anyMatch(n -> n.startsWith("thrift-nio-grizzly-server-selector"))
        .anyMatch(n -> n.startsWith("thrift-nio-grizzly-server-worker-"))
        .anyMatch(n -> n.startsWith("thrift-nio-grizzly-server-timer-"));
  }

  @Test
  void theFiltersServeAsyncProcessorsInAUsersOwnChain() throws Exception {
    TCPNIOTransport transport = TCPNIOTransportBuilder.newInstance().build();
    closeables.add(transport::shutdownNow);
    transport.setProcessor(
        FilterChainBuilder.stateless()
            .add(new TransportFilter())
            .add(new ThriftFrameFilter())
            .add(
                new ThriftServerFilter(
                    io.thriftnio.core.internal.server.ProcessorInvoker.ofAsync(
                        new BenchService.AsyncProcessor<>(new AsyncBenchHandler()),
                        PROTOCOL,
                        PROTOCOL,
                        io.thriftnio.core.util.internal.Framing.DEFAULT_MAX_FRAME_SIZE)))
            .build());
    transport.start();
    InetSocketAddress address = (InetSocketAddress) transport.bind(ANY_PORT).getLocalAddress();
    try (RawConnection c = RawConnection.open(address)) {
      c.write(
          concat(
              RawConnection.frame(call("sleep", 1, new BenchService.sleep_args(100))),
              RawConnection.frame(
                  call("get_last_sale", 2, new BenchService.get_last_sale_args("F")))));
      assertThat(
              RawConnection.decodeReply(PROTOCOL, c.readFrame(), new BenchService.sleep_result())
                  .seqid)
          .isEqualTo(1);
      BenchService.get_last_sale_result r = new BenchService.get_last_sale_result();
      assertThat(RawConnection.decodeReply(PROTOCOL, c.readFrame(), r).seqid).isEqualTo(2);
      assertThat(r.success.getSymbol()).isEqualTo("F");
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @Test
  void serverTransportRunsAProcessorInAUsersOwnFilterChain() throws Exception {
    BenchService.Processor<BenchHandler> processor =
        new BenchService.Processor<>(new BenchHandler());
    TCPNIOTransport transport = TCPNIOTransportBuilder.newInstance().build();
    closeables.add(transport::shutdownNow);
    transport.setProcessor(
        FilterChainBuilder.stateless()
            .add(new TransportFilter())
            .add(new ThriftFrameFilter(1024 * 1024))
            .add(
                new BaseFilter() {
                  @Override
                  public NextAction handleRead(FilterChainContext ctx) throws IOException {
                    Buffer payload = ctx.getMessage();
                    try {
                      TGrizzlyServerTransport t =
                          new TGrizzlyServerTransport(
                              ctx.getConnection(), payload.toByteBuffer(), new TConfiguration());
                      processor.process(PROTOCOL.getProtocol(t), PROTOCOL.getProtocol(t));
                    } catch (org.apache.thrift.TException e) {
                      throw new IOException(e);
                    }
                    return ctx.getStopAction();
                  }
                })
            .build());
    transport.start();
    InetSocketAddress address = (InetSocketAddress) transport.bind(ANY_PORT).getLocalAddress();
    try (RawConnection c = RawConnection.open(address)) {
      c.writeFrame(call("echo", 5, new BenchService.echo_args(Payloads.of(Payloads.MEDIUM, 5))));
      BenchService.echo_result r = new BenchService.echo_result();
      assertThat(RawConnection.decodeReply(PROTOCOL, c.readFrame(), r).seqid).isEqualTo(5);
      assertThat(Payloads.check(r.success, Payloads.MEDIUM, 5)).isTrue();
    }
  }
}
