package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import io.thriftnio.core.ConnectionListener;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.HeldLocks;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import io.thriftnio.testkit.tls.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.ServerContext;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.transport.SocketAddressProvider;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection listeners and the stock {@code TServerEventHandler} adapter, on every transport and
 * strategy: each close cause a user can provoke from outside (the peer closes, idle timeout, a bad
 * frame, the connection limit, the server's close, a TLS failure), the addresses and TLS peer a
 * listener sees, and a {@code TServerEventHandler} written as for {@code TThreadPoolServer} run
 * unchanged. Each transport runs it once per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.STRATEGIES_AND_NATIVE_WORKER)
public abstract class ConnectionEventsSuite extends ServerCellSuite {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();
  private static final long WAIT_SECONDS = 10;

  private final List<ThriftServer> servers = new ArrayList<>();

  /** The library locks held while a listener or event handler ran (issue 38): none, ever. */
  private final List<String> heldInCallbacks = new CopyOnWriteArrayList<>();

  private final List<Recorder> recorders = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeServers() {
    for (ThriftServer s : servers) {
      s.close();
    }
    // After the close, which waits for every onClose: the close path is checked too.
    recorders.forEach(r -> heldInCallbacks.addAll(r.held));
    assertThat(heldInCallbacks).as("library locks held while a callback ran").isEmpty();
  }

  private void noteHeldLocks() {
    heldInCallbacks.addAll(HeldLocks.ofLibrary());
  }

  /** A recorder whose held locks {@link #closeServers} checks. */
  private Recorder recorder() {
    Recorder r = new Recorder();
    recorders.add(r);
    return r;
  }

  /** One event a listener saw. */
  record Event(String kind, ConnectionInfo connection, CloseCause cause) {}

  /** Records every event, in the order they came. */
  static final class Recorder implements ConnectionListener {
    final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

    /** The library locks held while this listener ran (issue 38): none, ever. */
    final List<String> held = new CopyOnWriteArrayList<>();

    private void noteHeldLocks() {
      held.addAll(HeldLocks.ofLibrary());
    }

    @Override
    public void onOpen(ConnectionInfo connection) {
      noteHeldLocks();
      events.add(new Event("open", connection, null));
    }

    @Override
    public void onClose(ConnectionInfo connection, CloseCause cause) {
      noteHeldLocks();
      events.add(new Event("close", connection, cause));
    }

    @Override
    public void onRefused(ConnectionInfo connection, CloseCause cause) {
      noteHeldLocks();
      events.add(new Event("refused", connection, cause));
    }

    @Override
    public void beforeCall(ConnectionInfo connection) {
      noteHeldLocks();
    }

    @Override
    public void onServerStart(ServerConfig config) {
      noteHeldLocks();
    }

    Event next() throws InterruptedException {
      Event e = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(e).as("an event within %s s", WAIT_SECONDS).isNotNull();
      return e;
    }
  }

  private ServerBuilder<?> builder(BenchService.Iface handler) {
    return newServerBuilder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(PROTOCOL)
        .ioStrategy(strategy())
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private ThriftServer start(ServerBuilder<?> builder) throws IOException {
    ThriftServer server = builder.build();
    servers.add(server);
    return server.start();
  }

  /** A stock blocking client, as users of libthrift's servers have. */
  private static final class StockClient implements AutoCloseable {
    final TSocket socket;
    final BenchService.Client client;

    StockClient(InetSocketAddress address) throws Exception {
      socket = new TSocket(address.getHostString(), address.getPort(), 10_000);
      TTransport framed = new TFramedTransport(socket);
      framed.open();
      client = new BenchService.Client(PROTOCOL.getProtocol(framed));
    }

    SocketAddress localAddress() {
      return socket.getSocket().getLocalSocketAddress();
    }

    @Override
    public void close() {
      socket.close();
    }
  }

  // ---- causes ---------------------------------------------------------------------------------

  @Test
  void aConnectionOpensWithItsAddressesAndClosesAsPeerClosedWhenTheClientLeaves() throws Exception {
    Recorder recorder = recorder();
    AtomicLong callsConnection = new AtomicLong();
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public TradeReport get_last_sale(String symbol) {
            callsConnection.set(ServerCallContext.current().connectionId());
            return super.get_last_sale(symbol);
          }
        };
    ThriftServer server = start(builder(handler).connectionListener(recorder));
    SocketAddress clientSide;
    try (StockClient c = new StockClient(server.localAddress())) {
      clientSide = c.localAddress();
      assertThat(c.client.get_last_sale("A").getSymbol()).isEqualTo("A");
      Event open = recorder.next();
      assertThat(open.kind()).isEqualTo("open");
      // One numbering: the listener and the call context name the connection alike.
      assertThat(open.connection().id()).isPositive().isEqualTo(callsConnection.get());
      assertThat(open.connection().remoteAddress()).isEqualTo(clientSide);
      assertThat(open.connection().localAddress()).isEqualTo(server.localAddress());
      assertThat(open.connection().peerPrincipal()).isEmpty();
      assertThat(open.connection().peerCertificates()).isEmpty();
    }
    Event close = recorder.next();
    assertThat(close.kind()).isEqualTo("close");
    assertThat(close.cause()).isEqualTo(CloseCause.PEER_CLOSED);
    assertThat(close.connection().remoteAddress()).isEqualTo(clientSide);
  }

  @Test
  void anIdleConnectionClosesAsIdle() throws Exception {
    Recorder recorder = recorder();
    ThriftServer server =
        start(
            builder(new BenchHandler())
                .idleTimeout(Duration.ofMillis(200))
                .connectionListener(recorder));
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      assertThat(recorder.next().kind()).isEqualTo("open");
      c.awaitClosedBy(Duration.ofSeconds(WAIT_SECONDS));
      Event close = recorder.next();
      assertThat(close.kind()).isEqualTo("close");
      assertThat(close.cause()).isEqualTo(CloseCause.IDLE);
    }
  }

  @Test
  void aFrameNotCompletedWithinFrameTimeoutClosesAsFrameTimeout() throws Exception {
    Recorder recorder = recorder();
    ThriftServer server =
        start(
            builder(new BenchHandler())
                .frameTimeout(Duration.ofMillis(200))
                .connectionListener(recorder));
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      assertThat(recorder.next().kind()).isEqualTo("open");
      c.write(new byte[] {0, 0, 0, 100, 1, 2}); // 2 of 100 bytes, then nothing
      c.awaitClosedBy(Duration.ofSeconds(WAIT_SECONDS));
      Event close = recorder.next();
      assertThat(close.kind()).isEqualTo("close");
      assertThat(close.cause()).isEqualTo(CloseCause.FRAME_TIMEOUT);
    }
  }

  @Test
  void aConnectionResetByThePeerClosesAsPeerClosed() throws Exception {
    Recorder recorder = recorder();
    ThriftServer server = start(builder(new BenchHandler()).connectionListener(recorder));
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      assertThat(recorder.next().kind()).isEqualTo("open");
      c.reset(); // RST, not FIN
    }
    Event close = recorder.next();
    assertThat(close.kind()).isEqualTo("close");
    assertThat(close.cause())
        .as("a reset is the peer's close on both transports (Grizzly sees an end of stream)")
        .isEqualTo(CloseCause.PEER_CLOSED);
  }

  @Test
  void aFrameWithANegativeLengthClosesAsBadRequest() throws Exception {
    Recorder recorder = recorder();
    ThriftServer server = start(builder(new BenchHandler()).connectionListener(recorder));
    try (RawConnection c = RawConnection.open(server.localAddress())) {
      assertThat(recorder.next().kind()).isEqualTo("open");
      c.write(new byte[] {-1, -1, -1, -1}); // length -1
      c.awaitClosedBy(Duration.ofSeconds(WAIT_SECONDS));
      Event close = recorder.next();
      assertThat(close.kind()).isEqualTo("close");
      assertThat(close.cause()).isEqualTo(CloseCause.BAD_REQUEST);
    }
  }

  @Test
  void aConnectionOverMaxConnectionsIsRefusedAsLimitWithoutOpening() throws Exception {
    Recorder recorder = recorder();
    ThriftServer server =
        start(builder(new BenchHandler()).maxConnections(1).connectionListener(recorder));
    try (StockClient first = new StockClient(server.localAddress())) {
      assertThat(first.client.get_last_sale("A").getSymbol()).isEqualTo("A");
      Event open = recorder.next();
      assertThat(open.kind()).isEqualTo("open");
      try (RawConnection second = RawConnection.open(server.localAddress())) {
        Event refused = recorder.next();
        assertThat(refused.kind()).isEqualTo("refused");
        assertThat(refused.cause()).isEqualTo(CloseCause.LIMIT);
        assertThat(refused.connection().id()).isNotEqualTo(open.connection().id());
        second.awaitClosedBy(Duration.ofSeconds(WAIT_SECONDS));
      }
      assertThat(first.client.get_last_sale("B").getSymbol())
          .as("the open connection is untouched")
          .isEqualTo("B");
    }
    assertThat(recorder.next().cause()).isEqualTo(CloseCause.PEER_CLOSED);
  }

  @Test
  void theServersCloseClosesOpenConnectionsAsServerClosingBeforeItReturns() throws Exception {
    Recorder recorder = recorder();
    ThriftServer server = start(builder(new BenchHandler()).connectionListener(recorder));
    try (StockClient c = new StockClient(server.localAddress())) {
      assertThat(c.client.get_last_sale("A").getSymbol()).isEqualTo("A");
      assertThat(recorder.next().kind()).isEqualTo("open");
      server.close();
      Event close = recorder.events.poll();
      assertThat(close).as("onClose ran before close() returned").isNotNull();
      assertThat(close.kind()).isEqualTo("close");
      assertThat(close.cause()).isEqualTo(CloseCause.SERVER_CLOSING);
    }
    assertThat(recorder.events).as("no event after the close").isEmpty();
  }

  @Test
  void aTlsConnectionOpensAfterTheHandshakeWithThePeersCertificate() throws Exception {
    Recorder recorder = recorder();
    TestPki pki = TestPki.shared();
    ThriftServer server =
        start(
            builder(new BenchHandler())
                .tls(pki.mutualServerTls().build())
                .connectionListener(recorder));
    try (RawConnection c =
        RawConnection.open(
            server.localAddress(), pki.sslContext(pki.clientKeys()).getSocketFactory())) {
      c.writeFrame(
          RawConnection.encodeCall(
              PROTOCOL, "get_last_sale", 1, new BenchService.get_last_sale_args("T")));
      c.readFrame();
      Event open = recorder.next();
      assertThat(open.kind()).isEqualTo("open");
      assertThat(open.connection().peerPrincipal())
          .hasValueSatisfying(p -> assertThat(p.getName()).contains("CN=thrift-nio test client"));
      assertThat(open.connection().peerCertificates()).isNotEmpty();
    }
    assertThat(recorder.next().cause()).isEqualTo(CloseCause.PEER_CLOSED);

    try (RawConnection anonymous =
        RawConnection.open(server.localAddress(), pki.sslContext(null).getSocketFactory())) {
      anonymous.awaitClosedBy(Duration.ofSeconds(WAIT_SECONDS));
    }
    Event refused = recorder.next();
    assertThat(refused.kind())
        .as("no client certificate: never opened; %s", refused)
        .isEqualTo("refused");
    assertThat(refused.cause()).isEqualTo(CloseCause.TLS_FAILURE);
  }

  @Test
  void aThrowingListenerNeitherBreaksTheConnectionNorStopsTheNextListener() throws Exception {
    Recorder recorder = recorder();
    ConnectionListener throwing =
        new ConnectionListener() {
          @Override
          public void onOpen(ConnectionInfo connection) {
            throw new IllegalStateException("listener bug (expected by the test)");
          }

          @Override
          public void onClose(ConnectionInfo connection, CloseCause cause) {
            throw new IllegalStateException("listener bug (expected by the test)");
          }

          @Override
          public void beforeCall(ConnectionInfo connection) {
            throw new IllegalStateException("listener bug (expected by the test)");
          }
        };
    ThriftServer server =
        start(
            builder(new BenchHandler()).connectionListener(throwing).connectionListener(recorder));
    try (StockClient c = new StockClient(server.localAddress())) {
      for (int i = 0; i < 3; i++) {
        assertThat(c.client.get_last_sale("S" + i).getSymbol()).isEqualTo("S" + i);
      }
      assertThat(recorder.next().kind()).isEqualTo("open");
    }
    assertThat(recorder.next().cause()).isEqualTo(CloseCause.PEER_CLOSED);
  }

  // ---- the stock TServerEventHandler ----------------------------------------------------------

  /** Per-connection state, as a stock server's users keep it. */
  static final class CallerContext implements ServerContext {
    final SocketAddress peer;
    volatile SocketAddress remoteAddressSet;
    int calls;

    CallerContext(SocketAddress peer) {
      this.peer = peer;
    }

    @Override
    public void setRemoteAddress(SocketAddress remoteAddress) {
      remoteAddressSet = remoteAddress;
    }

    @Override
    public <T> T unwrap(Class<T> iface) {
      return iface.cast(this);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return iface.isInstance(this);
    }
  }

  /** The current call's connection, set by processContext, read by the handler. */
  static final ThreadLocal<CallerContext> CURRENT = new ThreadLocal<>();

  /** Written as for TThreadPoolServer: knows nothing of thrift-nio but its transport type. */
  final class StockEventHandler implements TServerEventHandler {
    final List<String> log = new ArrayList<>();
    final BlockingQueue<CallerContext> deleted = new LinkedBlockingQueue<>();

    @Override
    public synchronized void preServe() {
      noteHeldLocks();
      log.add("preServe");
    }

    @Override
    public synchronized ServerContext createContext(TProtocol input, TProtocol output) {
      noteHeldLocks();
      log.add("createContext");
      // As for libthrift's socket transports: the transport provides the peer's address.
      return new CallerContext(
          ((SocketAddressProvider) input.getTransport()).getRemoteSocketAddress());
    }

    @Override
    public synchronized void deleteContext(
        ServerContext serverContext, TProtocol input, TProtocol output) {
      noteHeldLocks();
      log.add("deleteContext");
      deleted.add((CallerContext) serverContext);
    }

    @Override
    public synchronized void processContext(
        ServerContext serverContext, TTransport inputTransport, TTransport outputTransport) {
      noteHeldLocks();
      CallerContext c = (CallerContext) serverContext;
      c.calls++;
      log.add("processContext " + c.calls);
      CURRENT.set(c);
    }

    synchronized List<String> log() {
      return new ArrayList<>(log);
    }
  }

  /** Answers get_last_sale with the caller's address, as its processContext left it. */
  static final class CallerAwareHandler extends BenchHandler {
    @Override
    public TradeReport get_last_sale(String symbol) {
      CallerContext c = CURRENT.get();
      CURRENT.remove();
      return super.get_last_sale(c == null ? "no context" : String.valueOf(c.peer));
    }
  }

  @Test
  void aStockTServerEventHandlerRunsUnchanged() throws Exception {
    StockEventHandler events = new StockEventHandler();
    ThriftServer server =
        start(
            builder(new CallerAwareHandler()).connectionListener(ConnectionListener.adapt(events)));
    SocketAddress clientSide;
    try (StockClient c = new StockClient(server.localAddress())) {
      clientSide = c.localAddress();
      for (int i = 0; i < 3; i++) {
        assertThat(c.client.get_last_sale("x").getSymbol())
            .as("the handler sees the context processContext set, on the call's thread")
            .isEqualTo(String.valueOf(clientSide));
      }
    }
    CallerContext deleted = events.deleted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(deleted).as("deleteContext once the client left").isNotNull();
    assertThat(deleted.peer).isEqualTo(clientSide);
    assertThat(deleted.remoteAddressSet)
        .as("setRemoteAddress, as the stock servers call it")
        .isEqualTo(clientSide);
    assertThat(deleted.calls).isEqualTo(3);
    assertThat(events.log())
        .containsExactly(
            "preServe",
            "createContext",
            "processContext 1",
            "processContext 2",
            "processContext 3",
            "deleteContext");
  }
}
