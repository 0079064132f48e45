package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import io.thriftnio.core.ConnectionListener;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.ServerCounters;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.Principal;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.server.ServerContext;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.transport.SocketAddressProvider;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection listeners driven by the registry alone, no sockets: when open, close and refusal fire,
 * the cause each decision notes, the first cause winning, TLS opening after the handshake, a close
 * that races the open, a throwing listener, and the stock {@code TServerEventHandler} adapter.
 */
@Timeout(10)
class ConnectionEventsTest {

  private static final SocketAddress PEER = new InetSocketAddress("127.0.0.1", 40000);
  private static final SocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 9090);

  private static final InetSocketAddress LOCAL_BIND = new InetSocketAddress("127.0.0.1", 0);

  /** Only to get a validated config. */
  private static final class Configs extends ServerBuilder<Configs> {
    ServerConfig get() {
      return config();
    }

    @Override
    public ThriftServer build() {
      throw new UnsupportedOperationException("configs only");
    }
  }

  private final ServerCounters counters = new ServerCounters();
  private final Recorder recorder = new Recorder();

  /**
   * Records events as strings: {@code open 1}, {@code close 1 IDLE}, {@code refused 3 LIMIT}. The
   * numbers are the order in which the recorder first saw each connection id (ids are JVM-wide and
   * increase in admission order, so other tests' connections shift them).
   */
  static final class Recorder implements ConnectionListener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<ConnectionInfo> infos = new CopyOnWriteArrayList<>();
    private final Map<Long, Integer> numbers = new ConcurrentHashMap<>();

    private synchronized int n(ConnectionInfo c) {
      Integer seen = numbers.get(c.id());
      if (seen == null) {
        seen = numbers.size() + 1;
        numbers.put(c.id(), seen);
      }
      return seen;
    }

    @Override
    public void onOpen(ConnectionInfo c) {
      infos.add(c);
      events.add("open " + n(c));
    }

    @Override
    public void onClose(ConnectionInfo c, CloseCause cause) {
      events.add("close " + n(c) + " " + cause);
    }

    @Override
    public void onRefused(ConnectionInfo c, CloseCause cause) {
      infos.add(c);
      events.add("refused " + n(c) + " " + cause);
    }

    @Override
    public void beforeCall(ConnectionInfo c) {
      events.add("call " + n(c));
    }
  }

  private ConnectionRegistry<FakeHandle> registry(int max, boolean tls, ConnectionListener... ls) {
    return new ConnectionRegistry<>(max, counters, new ConnectionEvents(List.of(ls), tls));
  }

  private static RegisteredConnection<FakeHandle> admit(ConnectionRegistry<FakeHandle> registry) {
    RegisteredConnection<FakeHandle> c =
        registry.admit(new FakeHandle(), PEER, LOCAL, System.nanoTime());
    if (c != null) {
      c.handle().onClose = () -> registry.closed(c);
    }
    return c;
  }

  @Test
  void aPlainConnectionOpensAtAdmissionWithItsAddressesAndClosesAsPeerClosed() {
    ConnectionRegistry<FakeHandle> registry = registry(10, false, recorder);
    RegisteredConnection<FakeHandle> c = admit(registry);
    assertThat(recorder.events).containsExactly("open 1");
    ConnectionInfo info = recorder.infos.get(0);
    assertThat(info.remoteAddress()).isEqualTo(PEER);
    assertThat(info.localAddress()).isEqualTo(LOCAL);
    assertThat(info.peerPrincipal()).isEmpty();
    assertThat(c.info()).isSameAs(info);
    c.handle().closeNow(); // nothing noted: the peer closed it
    registry.closed(c); // a second notification changes nothing
    assertThat(recorder.events).containsExactly("open 1", "close 1 PEER_CLOSED");
    assertThat(registry.size()).isZero();
  }

  @Test
  void overMaxConnectionsAndWhileClosingAConnectionIsRefusedWithoutOpening() {
    ConnectionRegistry<FakeHandle> registry = registry(1, false, recorder);
    admit(registry);
    assertThat(admit(registry)).isNull();
    registry.refuseNew();
    assertThat(admit(registry)).isNull();
    assertThat(recorder.events)
        .containsExactly("open 1", "refused 2 LIMIT", "refused 3 SERVER_CLOSING");
    assertThat(recorder.infos.get(1).remoteAddress()).isEqualTo(PEER);
  }

  @Test
  void eachTimeoutClosesWithItsCause() {
    ConnectionRegistry<FakeHandle> registry = registry(10, false, recorder);
    registry.timedOut(admit(registry), new TimeoutPolicy.Verdict(TimeoutPolicy.Kind.IDLE, "idle"));
    registry.timedOut(
        admit(registry), new TimeoutPolicy.Verdict(TimeoutPolicy.Kind.PARTIAL_REQUEST, "slow"));
    registry.timedOut(
        admit(registry), new TimeoutPolicy.Verdict(TimeoutPolicy.Kind.STALLED_READER, "stalled"));
    assertThat(recorder.events)
        .containsExactly(
            "open 1",
            "close 1 IDLE",
            "open 2",
            "close 2 FRAME_TIMEOUT",
            "open 3",
            "close 3 FRAME_TIMEOUT");
    assertThat(counters.snapshot(ServerStats.class).timedOutConnections()).isEqualTo(3);
  }

  @Test
  void theDrainClosesAsServerClosingButTheFirstNotedCauseWins() {
    ConnectionRegistry<FakeHandle> registry = registry(10, false, recorder);
    RegisteredConnection<FakeHandle> busy = admit(registry);
    busy.handle().pending = 1; // a call in flight: the drain waits for it
    RegisteredConnection<FakeHandle> badRequest = admit(registry);
    badRequest.handle().pending = 1;
    badRequest.noteClosedAfterReplies(); // decided before the close began
    registry.refuseNew();
    registry.drainAll();
    assertThat(recorder.events).containsExactly("open 1", "open 2");
    badRequest.handle().closeNow();
    busy.noteClose(CloseCause.ERROR); // too late: the drain's cause was noted first
    registry.closeAll();
    assertThat(recorder.events)
        .containsExactly("open 1", "open 2", "close 2 BAD_REQUEST", "close 1 SERVER_CLOSING");
  }

  @Test
  void aTlsConnectionOpensAfterItsHandshakeWithThePeersIdentityAndAFailureIsARefusal() {
    ConnectionRegistry<FakeHandle> registry = registry(10, true, recorder);
    RegisteredConnection<FakeHandle> ok = admit(registry);
    RegisteredConnection<FakeHandle> failed = admit(registry);
    RegisteredConnection<FakeHandle> healthCheck = admit(registry);
    assertThat(recorder.events).as("nothing opens before its handshake").isEmpty();
    X500Principal client = new X500Principal("CN=client");
    ok.tlsEstablished(session(client));
    registry.tlsFailed(failed, "certificate required");
    healthCheck.handle().closeNow();
    ok.handle().closeNow();
    assertThat(recorder.events)
        .containsExactly(
            "open 1", "refused 2 TLS_FAILURE", "refused 3 PEER_CLOSED", "close 1 PEER_CLOSED");
    assertThat(recorder.infos.get(0).peerPrincipal()).contains(client);
    assertThat(recorder.infos.get(0).peerCertificates()).hasSize(1);
    assertThat(counters.snapshot(ServerStats.class).tlsFailures()).isEqualTo(1);
  }

  @Test
  void aCloseDuringOnOpenIsDeliveredOnlyAfterOnOpenReturns() throws Exception {
    CountDownLatch inOnOpen = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> events = new CopyOnWriteArrayList<>();
    ConnectionListener slow =
        new ConnectionListener() {
          @Override
          public void onOpen(ConnectionInfo c) {
            inOnOpen.countDown();
            try {
              release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            events.add("open returned");
          }

          @Override
          public void onClose(ConnectionInfo c, CloseCause cause) {
            events.add("close " + cause);
          }
        };
    ConnectionRegistry<FakeHandle> registry = registry(10, true, slow);
    RegisteredConnection<FakeHandle> c = admit(registry);
    CompletableFuture<Void> handshake =
        CompletableFuture.runAsync(() -> c.tlsEstablished(session(null)));
    assertThat(inOnOpen.await(5, TimeUnit.SECONDS)).isTrue();
    registry.timedOut(c, new TimeoutPolicy.Verdict(TimeoutPolicy.Kind.IDLE, "idle"));
    assertThat(events).as("onClose waits for onOpen").isEmpty();
    release.countDown();
    handshake.get(5, TimeUnit.SECONDS);
    assertThat(events).containsExactly("open returned", "close IDLE");
  }

  @Test
  void aThrowingListenerIsSkippedAndTheNextStillRuns() {
    ConnectionListener throwing =
        new ConnectionListener() {
          @Override
          public void onOpen(ConnectionInfo c) {
            throw new IllegalStateException("listener bug (expected by the test)");
          }

          @Override
          public void onClose(ConnectionInfo c, CloseCause cause) {
            throw new IllegalStateException("listener bug (expected by the test)");
          }

          @Override
          public void beforeCall(ConnectionInfo c) {
            throw new IllegalStateException("listener bug (expected by the test)");
          }
        };
    ConnectionRegistry<FakeHandle> registry = registry(10, false, throwing, recorder);
    RegisteredConnection<FakeHandle> c = admit(registry);
    registry.events().beforeCall(c);
    c.handle().closeNow();
    assertThat(recorder.events).containsExactly("open 1", "call 1", "close 1 PEER_CLOSED");
    assertThat(registry.size()).isZero();
  }

  @Test
  void withoutListenersTheRegistryHasNoEvents() {
    assertThat(new ConnectionRegistry<FakeHandle>(1, counters).events()).isNull();
  }

  // ---- the stock adapter ------------------------------------------------------------------------

  /** A stock handler: records its calls and the transports it was given. */
  static final class StockHandler implements TServerEventHandler {
    final List<String> calls = new ArrayList<>();
    final List<TTransport> transports = new ArrayList<>();

    @Override
    public void preServe() {
      calls.add("preServe");
    }

    @Override
    public ServerContext createContext(TProtocol input, TProtocol output) {
      calls.add("createContext");
      transports.add(input.getTransport());
      return new Context();
    }

    @Override
    public void deleteContext(ServerContext context, TProtocol input, TProtocol output) {
      calls.add(
          "deleteContext "
              + ((Context) context).processed
              + " open "
              + input.getTransport().isOpen()
              + " "
              + input.getClass().getSimpleName());
    }

    @Override
    public void processContext(ServerContext context, TTransport in, TTransport out) {
      ((Context) context).processed++;
      calls.add("processContext");
      transports.add(in);
      transports.add(out);
    }
  }

  static final class Context implements ServerContext {
    int processed;

    @Override
    public <T> T unwrap(Class<T> iface) {
      return iface.cast(this);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return iface.isInstance(this);
    }
  }

  @Test
  void theStockAdapterCallsTheHandlerAsTheStockServersDo() {
    StockHandler handler = new StockHandler();
    ConnectionListener adapter = ConnectionListener.adapt(handler);
    ConnectionRegistry<FakeHandle> registry = registry(10, false, adapter);
    ConnectionEvents events = registry.events();
    events.serverStarting(
        new Configs()
            .processor((in, out) -> {})
            .protocol(new TCompactProtocol.Factory())
            .bind(LOCAL_BIND)
            .get());
    RegisteredConnection<FakeHandle> c = admit(registry);
    events.beforeCall(c);
    events.beforeCall(c);
    c.handle().closeNow();
    assertThat(handler.calls)
        .containsExactly(
            "preServe",
            "createContext",
            "processContext",
            "processContext",
            "deleteContext 2 open false TCompactProtocol");
    assertThat(handler.transports).hasSize(5);
    TTransport t = handler.transports.get(0);
    assertThat(handler.transports).allSatisfy(x -> assertThat(x).isSameAs(t));
    assertThat(((SocketAddressProvider) t).getRemoteSocketAddress()).isEqualTo(PEER);
  }

  private static SSLSession session(Principal peer) {
    return (SSLSession)
        Proxy.newProxyInstance(
            ConnectionEventsTest.class.getClassLoader(),
            new Class<?>[] {SSLSession.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getPeerPrincipal":
                  if (peer == null) {
                    throw new javax.net.ssl.SSLPeerUnverifiedException("no certificate");
                  }
                  return peer;
                case "getPeerCertificates":
                  if (peer == null) {
                    throw new javax.net.ssl.SSLPeerUnverifiedException("no certificate");
                  }
                  return new Certificate[] {new FakeCertificate()};
                default:
                  throw new UnsupportedOperationException(method.getName());
              }
            });
  }

  /** A certificate nobody verifies: only its presence is looked at. */
  private static final class FakeCertificate extends Certificate {
    FakeCertificate() {
      super("X.509");
    }

    @Override
    public byte[] getEncoded() {
      return new byte[0];
    }

    @Override
    public void verify(java.security.PublicKey key) {}

    @Override
    public void verify(java.security.PublicKey key, String sigProvider) {}

    @Override
    public String toString() {
      return "FakeCertificate";
    }

    @Override
    public java.security.PublicKey getPublicKey() {
      return null;
    }
  }
}
