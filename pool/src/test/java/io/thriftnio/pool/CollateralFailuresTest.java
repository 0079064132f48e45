package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.util.internal.CallTimeoutException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The channel pool judges an endpoint by what the endpoint did, not by collateral: over scripted
 * channels whose calls the test ends one by one, no sockets and no clocks.
 */
@Timeout(30)
class CollateralFailuresTest {
  private static final InetSocketAddress A = InetSocketAddress.createUnresolved("a", 1);
  private static final InetSocketAddress B = InetSocketAddress.createUnresolved("b", 2);

  private final Map<InetSocketAddress, List<ScriptedChannel>> opened = new ConcurrentHashMap<>();
  private final AtomicInteger invalidatedEvents = new AtomicInteger();
  private final AtomicInteger seq = new AtomicInteger();
  private MultiplexedPool pool;

  @AfterEach
  void close() {
    if (pool != null) {
      pool.close();
    }
  }

  private MultiplexedPool pool(
      Balancer balancer, PoolConfig.Builder config, InetSocketAddress... at) {
    return pool(balancer, config, 16, at);
  }

  private MultiplexedPool pool(
      Balancer balancer, PoolConfig.Builder config, int maxInFlight, InetSocketAddress... at) {
    return pool(balancer, config, maxInFlight, System::nanoTime, at);
  }

  private MultiplexedPool pool(
      Balancer balancer,
      PoolConfig.Builder config,
      int maxInFlight,
      LongSupplier clock,
      InetSocketAddress... at) {
    pool =
        new MultiplexedPool(
            "test-channels",
            EndpointSource.of(List.of(at)),
            config.balancer(balancer).build(),
            new PoolMetrics() {
              @Override
              public void invalidated(InetSocketAddress endpoint, Throwable cause) {
                invalidatedEvents.incrementAndGet();
              }
            },
            endpoint -> {
              ScriptedChannel c = new ScriptedChannel(endpoint);
              opened.computeIfAbsent(endpoint, k -> new CopyOnWriteArrayList<>()).add(c);
              return c;
            },
            new TBinaryProtocol.Factory(),
            channel -> true,
            maxInFlight,
            clock);
    return pool;
  }

  private static PoolConfig.Builder config() {
    // One connection per endpoint unless a test says otherwise: two connectors may each open one
    // for calls placed while the first connect is under way, and the tests read "the" connection.
    return PoolConfig.builder()
        .maxPerEndpoint(1)
        .maxIdlePerEndpoint(1)
        .idleConnections(IdleConnectionsConfig.builder().evictionInterval(Duration.ZERO).build())
        .endpointHealth(
            EndpointHealthConfig.builder()
                .ejectAfterConsecutiveFailures(3)
                .backoff(Duration.ofSeconds(30))
                .maxBackoff(Duration.ofSeconds(30))
                .build());
  }

  private List<CompletableFuture<ByteBuffer>> call(int n) throws Exception {
    List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      calls.add(pool.exchange(message("echo", seq.incrementAndGet(), TMessageType.CALL)));
    }
    return calls;
  }

  /** Waits until {@code n} calls have reached channels (a first call connects on a connector). */
  private void awaitPlaced(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (placed() < n) {
      assertThat(System.nanoTime() - deadline)
          .as("%s calls placed in 10 s; placed per endpoint: %s", n, placedPerEndpoint())
          .isNegative();
      Thread.sleep(2); // polling the scripted channels' books
    }
  }

  /** Each endpoint's channels and the calls pending on each, for a failure's message. */
  private String placedPerEndpoint() {
    StringBuilder sb = new StringBuilder();
    opened.forEach(
        (endpoint, list) -> {
          sb.append(endpoint).append(": [");
          for (ScriptedChannel c : list) {
            sb.append(c.pending.size()).append(c.isOpen() ? " " : " closed ");
          }
          sb.append("] ");
        });
    return sb.toString() + pool.stats();
  }

  private int placed() {
    int n = 0;
    for (List<ScriptedChannel> list : opened.values()) {
      for (ScriptedChannel c : list) {
        n += c.pending.size();
      }
    }
    return n;
  }

  private ScriptedChannel only(InetSocketAddress endpoint) {
    assertThat(opened.get(endpoint)).hasSize(1);
    return opened.get(endpoint).get(0);
  }

  @Test
  void aBrokenConnectionIsOneFailureHoweverManyCallsItCarried() throws Exception {
    pool(Balancer.ROUND_ROBIN, config(), A, B);
    // One call to each endpoint first, so that both connections are open before the rest: calls
    // that arrive while one endpoint still connects wait for the other, whose one connection then
    // fills up (16 calls); the last ones, finding no open connection with room elsewhere yet, wait
    // for a release that never comes here.
    call(2);
    awaitPlaced(2);
    call(18); // about ten on each endpoint, one connection each
    awaitPlaced(20);
    ScriptedChannel a = only(A);
    assertThat(a.pending.size())
        .as("enough calls on A to eject it, if each counted")
        .isGreaterThan(3);
    a.breakConnection(); // its calls all fail with one connection failure
    assertThat(pool.stats().ejections()).as("3 failures in a row eject; this was 1").isZero();
    assertThat(pool.stats().invalidated()).isEqualTo(1);
    assertThat(invalidatedEvents).as("once per connection, as PoolStats counts").hasValue(1);
  }

  @Test
  void aCallThatTimedOutBehindATimedOutCallSaysNothingAboutTheEndpoint() throws Exception {
    pool(Balancer.ROUND_ROBIN, config(), A, B);
    // Both connections open first, as above: 20 calls at once, while A still connected, filled
    // B's one connection and left the last ones waiting for a release that never comes (CI).
    call(2);
    awaitPlaced(2);
    call(18);
    awaitPlaced(20);
    ScriptedChannel a = only(A);
    a.timeOut(0, false); // the slow call: one failure of the endpoint
    for (int i = 1; i < a.pending.size(); i++) {
      a.timeOut(i, true); // queued behind it: head-of-line, not the endpoint's doing
    }
    assertThat(pool.stats().ejections()).as("one failure of A's own, of the 3 that eject").isZero();
    assertThat(a.isOpen()).as("a timed-out call leaves its connection open").isTrue();
    assertThat(pool.stats().invalidated()).isZero();
  }

  @Test
  void timeoutsOfTheEndpointsOwnStillCountAndEject() throws Exception {
    pool(Balancer.ROUND_ROBIN, config(), A, B);
    // Both connections open first, as above (CI: 20 calls at once placed 19, one timed out
    // waiting while A still connected).
    call(2);
    awaitPlaced(2);
    call(18);
    awaitPlaced(20);
    ScriptedChannel a = only(A);
    for (int i = 0; i < 3; i++) {
      a.timeOut(i, false);
    }
    assertThat(pool.stats().ejections()).as("three slow calls in a row eject it").isEqualTo(1);
  }

  @Test
  void aCallGoesToAConnectionThatOwesNoLateReplyOpeningOneIfNeeded() throws Exception {
    pool(Balancer.ROUND_ROBIN, config().maxPerEndpoint(2).maxIdlePerEndpoint(2), A);
    call(1);
    awaitPlaced(1);
    ScriptedChannel first = only(A);
    first.abandoned = 1; // a call on it timed out and its reply is still owed
    call(1);
    awaitPlaced(2);
    assertThat(opened.get(A)).hasSize(2);
    assertThat(first.pending).hasSize(1);
    assertThat(opened.get(A).get(1).pending).hasSize(1);
  }

  @Test
  void theBalancerSendsCallsAwayFromAnEndpointWhoseConnectionOwesALateReply() throws Exception {
    pool(Balancer.POWER_OF_TWO_CHOICES, config(), A, B);
    int made = 0;
    while (!opened.containsKey(A)) { // the balancer draws at random: call until A has a connection
      call(1);
      awaitPlaced(++made);
      assertThat(made).isLessThan(50);
    }
    opened.get(A).forEach(c -> c.abandoned = 1);
    int onA = opened.get(A).stream().mapToInt(c -> c.pending.size()).sum();
    int more = Math.min(10, 15 - made); // B stays below a full connection's 16 calls
    call(more);
    awaitPlaced(made + more);
    assertThat(opened.get(A).stream().mapToInt(c -> c.pending.size()).sum())
        .as("no new call joins the queue behind the late reply")
        .isEqualTo(onA);
    assertThat(opened.get(A)).as("no connection opened for it either").hasSize(1);
  }

  @Test
  void whileAConnectionOwesALateReplyAFullEndpointSendsItsCallToRoomElsewhere() throws Exception {
    // Two calls per connection, three connections in all: A1, B1, A2.
    pool(
        Balancer.ROUND_ROBIN,
        config().maxTotal(3).maxPerEndpoint(2).maxIdlePerEndpoint(2),
        2,
        A,
        B);
    for (int i = 1; i <= 5; i++) {
      call(1); // round robin: A1, B1, A1, B1, then A2
      awaitPlaced(i);
    }
    assertThat(opened.get(A)).hasSize(2);
    ScriptedChannel a2 = opened.get(A).get(1);
    assertThat(a2.pending).hasSize(1);
    opened.get(A).get(0).abandoned = 1; // A1 owes a late reply: the balancer counts it as full
    call(1); // round robin says B, whose one connection is full and which may not connect
    awaitPlaced(6);
    assertThat(a2.pending).as("the room on A2, not a wait for B").hasSize(2);
    assertThat(opened.get(B)).hasSize(1);
  }

  @Test
  void aFullEndpointThatMayNotConnectSendsItsCallToRoomElsewhereRatherThanWait() throws Exception {
    // Two calls per connection, one connection per endpoint; no late reply owed anywhere.
    pool(Balancer.ROUND_ROBIN, config(), 2, A, B);
    for (int i = 1; i <= 4; i++) {
      call(1); // round robin: A, B, A, B: both connections full
      awaitPlaced(i);
    }
    ScriptedChannel a = only(A);
    ScriptedChannel b = only(B);
    b.answer(0); // room on B; A stays full
    CompletableFuture<ByteBuffer> fifth = call(1).get(0); // round robin says A
    awaitPlaced(5);
    assertThat(b.pending).as("the room on B, not a wait for a release on A").hasSize(3);
    assertThat(a.pending).hasSize(2);
    assertThat(fifth).isNotDone();
    b.answer(2);
    assertThat(fifth.get(10, TimeUnit.SECONDS).remaining()).isPositive();
    assertThat(pool.stats().timeouts()).isZero();
  }

  @Test
  void theProbeOfADownEndpointGoesToItNotToRoomElsewhere() throws Exception {
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    PoolConfig.Builder config =
        config()
            .endpointHealth(
                EndpointHealthConfig.builder()
                    .ejectAfterConsecutiveFailures(1)
                    .backoff(Duration.ofMillis(100))
                    .maxBackoff(Duration.ofMillis(100))
                    .build());
    pool(Balancer.ROUND_ROBIN, config, 1, clock::get, A, B);
    call(1);
    awaitPlaced(1);
    call(1);
    awaitPlaced(2);
    ScriptedChannel a = only(A);
    ScriptedChannel b = only(B);
    a.timeOut(0, false); // A's own timeout: ejected; its one connection owes the late reply
    assertThat(pool.stats().ejections()).as("A ejected by its own timeout").isEqualTo(1);
    b.answer(0); // room on B
    clock.addAndGet(Duration.ofMillis(100).toNanos()); // A's back-off has passed: due for a probe
    call(1); // round robin: A, its probe
    a.answer(0); // the late reply: A's connection is free again
    awaitPlaced(3);
    assertThat(a.pending).as("the probe reached A").hasSize(2);
    assertThat(b.pending).as("and not B's free connection").hasSize(1);
  }

  @Test
  void aPoolDeadlineBoundsTheChannelCallSoItsSlotIsNotHeldPastIt() throws Exception {
    PoolConfig.Builder config =
        config()
            .callDeadline(Duration.ofMillis(250))
            .endpointHealth(
                EndpointHealthConfig.builder() // one failure of A's own would eject it
                    .ejectAfterConsecutiveFailures(1)
                    .backoff(Duration.ofSeconds(30))
                    .maxBackoff(Duration.ofSeconds(30))
                    .build());
    pool(Balancer.ROUND_ROBIN, config, A);
    pool.callTimeout(Duration.ofSeconds(30));
    CompletableFuture<ByteBuffer> call = call(1).get(0);
    awaitPlaced(1);
    ScriptedChannel a = only(A);
    assertThat(a.timeouts.get(0))
        .as("sent with the time left, not the channel's 30 s")
        .isNotNull()
        .isLessThanOrEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(io.thriftnio.pool.CallDeadlineException.class);
    a.timeOut(0, false); // the channel's own timer, at the deadline: the caller's time, not A's
    assertThat(pool.stats().ejections()).as("A is not ejected for the caller's deadline").isZero();
  }

  /** A strict-binary message header and an empty struct. */
  static ByteBuffer message(String name, int seqId, byte type) throws TException {
    TMemoryBuffer buffer = new TMemoryBuffer(64);
    TBinaryProtocol out = new TBinaryProtocol(buffer);
    out.writeMessageBegin(new TMessage(name, type, seqId));
    out.writeStructBegin(null);
    out.writeFieldStop();
    out.writeStructEnd();
    out.writeMessageEnd();
    return ByteBuffer.wrap(buffer.getArray(), 0, buffer.length());
  }

  /** A channel whose calls the test ends. */
  static final class ScriptedChannel implements ThriftChannel {
    final InetSocketAddress endpoint;
    final List<CompletableFuture<ByteBuffer>> pending = new CopyOnWriteArrayList<>();
    final List<Duration> timeouts = new CopyOnWriteArrayList<>();
    final List<ByteBuffer> requests = new CopyOnWriteArrayList<>();
    final List<Runnable> onClose = new CopyOnWriteArrayList<>();
    volatile int abandoned;
    volatile boolean open = true;

    ScriptedChannel(InetSocketAddress endpoint) {
      this.endpoint = endpoint;
    }

    /** Fails call {@code i} alone with a timeout. */
    void timeOut(int i, boolean behind) {
      abandoned++;
      pending.get(i).completeExceptionally(new CallTimeoutException("call timed out", behind));
    }

    /** Answers call {@code i} with an empty reply to its request. */
    void answer(int i) throws TException {
      ByteBuffer request = requests.get(i).duplicate();
      byte[] bytes = new byte[request.remaining()];
      request.get(bytes);
      TMessage sent = new TBinaryProtocol(new TMemoryInputTransport(bytes)).readMessageBegin();
      pending.get(i).complete(message(sent.name, sent.seqid, TMessageType.REPLY));
    }

    /** The connection breaks: every call fails with one exception, as a close does. */
    void breakConnection() {
      open = false;
      TTransportException e =
          new TTransportException(TTransportException.END_OF_FILE, "closed by the peer");
      for (CompletableFuture<ByteBuffer> c : pending) {
        c.completeExceptionally(e);
      }
      onClose.forEach(Runnable::run);
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
      return exchange(request, null);
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
      CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
      requests.add(request.duplicate());
      pending.add(f);
      timeouts.add(timeout);
      return f;
    }

    @Override
    public CompletableFuture<Void> send(ByteBuffer request) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public int callsInFlight() {
      return (int) pending.stream().filter(f -> !f.isDone()).count() + abandoned;
    }

    @Override
    public int abandonedCalls() {
      return abandoned;
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public SocketAddress remoteAddress() {
      return endpoint;
    }

    @Override
    public void whenClosed(Runnable action) {
      onClose.add(action);
    }

    @Override
    public void close() {
      if (open) {
        breakConnection();
      }
    }
  }
}
