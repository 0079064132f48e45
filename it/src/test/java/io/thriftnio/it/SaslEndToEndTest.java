package io.thriftnio.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.sasl.SaslPeers;
import io.thriftnio.testkit.sasl.TestKdc;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * This library's SASL clients against this library's SASL servers: each mechanism (PLAIN, DIGEST-
 * MD5, GSSAPI against the JVM's {@link TestKdc}) under a quality of protection, through the channel
 * pool on Netty's and Grizzly's channels, the sync pool on this library's sync transport, and the
 * stock async pool (auth only), against a Netty WORKER and a Grizzly SAME_THREAD server that both
 * accept every mechanism and every quality of protection. Each call's handler sees the identity
 * that negotiated; a wrong password fails with the server's reason.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaslEndToEndTest {

  private static final String SERVICE = "thrift";
  private static final String USER = "alice";
  private static final Map<String, ThriftServer> SERVERS = new LinkedHashMap<>();
  private static final Queue<SaslIdentity> SEEN = new ConcurrentLinkedQueue<>();
  private static NettyClientIo nettyIo;
  private static GrizzlyClientIo grizzlyIo;

  @BeforeAll
  static void startServers() throws Exception {
    TestKdc kdc = TestKdc.shared();
    ServerSasl sasl =
        ServerSasl.builder()
            .gssapi(kdc.login(SERVICE + "/" + TestKdc.HOST), SERVICE, TestKdc.HOST)
            .digestMd5(SaslPeers.PROTOCOL, SaslPeers.SERVER_NAME, SaslPeers.digestServerHandler())
            .plain((user, password) -> new String(password).equals(SaslPeers.USERS.get(user)))
            .plainWithoutTls(true) // loopback only, in a test
            .qop(SaslQop.AUTH, SaslQop.AUTH_INT, SaslQop.AUTH_CONF)
            .build();
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public ByteBuffer echo(ByteBuffer payload) {
            ServerCallContext.current().sasl().ifPresent(SEEN::add);
            return super.echo(payload);
          }
        };
    InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    SERVERS.put(
        "netty/worker",
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(handler))
            .ioStrategy(IoStrategy.WORKER)
            .wireKinds(WireKind.SASL)
            .sasl(sasl)
            // 30 pipelined calls of up to 100 KB, wrapped: on a loaded machine the later ones wait
            // more than 5 ms behind the earlier ones, and shedding is not what this test checks
            .queueTimeTarget(Duration.ZERO)
            .bind(any)
            .build()
            .start());
    SERVERS.put(
        "grizzly/same-thread",
        GrizzlyThriftServer.builder()
            .processor(new BenchService.Processor<>(handler))
            .ioStrategy(IoStrategy.SAME_THREAD)
            .wireKinds(WireKind.SASL)
            .sasl(sasl)
            .queueTimeTarget(Duration.ZERO) // as above
            .bind(any)
            .build()
            .start());
    nettyIo = NettyClientIo.create(1);
    grizzlyIo = GrizzlyClientIo.create();
  }

  @AfterAll
  static void stopServers() throws Exception {
    SERVERS.values().forEach(ThriftServer::close);
    nettyIo.close();
    grizzlyIo.close();
  }

  /** The user's client settings for {@code mechanism} under {@code qop}. */
  private static ClientSasl client(String mechanism, SaslQop qop) {
    char[] password = SaslPeers.USERS.get(USER).toCharArray();
    ClientSasl sasl =
        switch (mechanism) {
          case "PLAIN" -> ClientSasl.plain(USER, password);
          case "DIGEST-MD5" ->
              ClientSasl.digestMd5(USER, password, SaslPeers.PROTOCOL, SaslPeers.SERVER_NAME);
          case "GSSAPI" -> ClientSasl.gssapi(TestKdc.shared().login(USER), SERVICE, TestKdc.HOST);
          default -> throw new IllegalArgumentException(mechanism);
        };
    return sasl.withQop(qop);
  }

  private static ClientOptions options(ClientSasl sasl) {
    return ClientOptions.builder().wireKind(WireKind.SASL).sasl(sasl).build();
  }

  private static String identityOf(String mechanism) {
    return mechanism.equals("GSSAPI") ? TestKdc.shared().principal(USER) : USER;
  }

  static Stream<Arguments> cells() {
    List<Arguments> cells = new ArrayList<>();
    String[][] mechanisms = {
      {"PLAIN", "AUTH"},
      {"DIGEST-MD5", "AUTH_CONF"},
      {"GSSAPI", "AUTH_INT"},
      {"GSSAPI", "AUTH_CONF"}
    };
    for (String server : List.of("netty/worker", "grizzly/same-thread")) {
      for (String client : List.of("channel-pool/netty", "channel-pool/grizzly", "sync-pool")) {
        for (String[] m : mechanisms) {
          cells.add(Arguments.of(server, client, m[0], SaslQop.valueOf(m[1])));
        }
      }
      for (String[] m : new String[][] {{"PLAIN", "AUTH"}, {"DIGEST-MD5", "AUTH"}}) {
        cells.add(Arguments.of(server, "async-pool", m[0], SaslQop.valueOf(m[1])));
      }
    }
    return cells.stream();
  }

  @ParameterizedTest(name = "{0} <- {1}: {2} {3}")
  @MethodSource("cells")
  void ourClientsNegotiateWithOurServers(
      String serverRow, String client, String mechanism, SaslQop qop) throws Exception {
    InetSocketAddress address = SERVERS.get(serverRow).localAddress();
    ClientOptions options = options(client(mechanism, qop));
    SEEN.clear();
    // Sizes on both sides of the mechanisms' 64 KiB buffers: each frame wrapped whole.
    int[] sizes = {1, 1_000, 100_000};
    switch (client) {
      case "channel-pool/netty", "channel-pool/grizzly" -> {
        ClientIo io = client.endsWith("netty") ? nettyIo : grizzlyIo;
        try (ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(io)
                .options(options)
                .endpoints(address)
                .build()) {
          List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
          for (int i = 0; i < 30; i++) {
            ByteBuffer payload = Payloads.of(sizes[i % 3], i);
            calls.add(pool.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
          }
          for (int i = 0; i < calls.size(); i++) {
            assertThat(Payloads.check(calls.get(i).get(30, TimeUnit.SECONDS), sizes[i % 3], i))
                .as("call %d", i)
                .isTrue();
          }
        }
      }
      case "sync-pool" -> {
        try (ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(address)
                .transportFactory(ClientTransportFactory.of(nettyIo, options))
                .build()) {
          for (int i = 0; i < 9; i++) {
            int seed = i;
            ByteBuffer echoed = pool.call(c -> c.echo(Payloads.of(sizes[seed % 3], seed)));
            assertThat(Payloads.check(echoed, sizes[i % 3], i)).as("call %d", i).isTrue();
          }
        }
      }
      case "async-pool" -> {
        try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(address)
                .options(options)
                .maxPerEndpoint(2)
                .maxIdlePerEndpoint(2)
                .selectorThreads(1)
                .build()) {
          List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
          for (int i = 0; i < 20; i++) {
            ByteBuffer payload = Payloads.of(sizes[i % 3], i);
            calls.add(pool.call((c, callback) -> c.echo(payload, callback)));
          }
          for (int i = 0; i < calls.size(); i++) {
            assertThat(Payloads.check(calls.get(i).get(30, TimeUnit.SECONDS), sizes[i % 3], i))
                .as("call %d", i)
                .isTrue();
          }
        }
      }
      default -> throw new IllegalArgumentException(client);
    }
    assertThat(SEEN)
        .isNotEmpty()
        .allMatch(seen -> seen.equals(new SaslIdentity(mechanism, identityOf(mechanism), qop)));
  }

  @Test
  void aWrongPasswordFailsWithTheServersReason() {
    for (ThriftServer server : SERVERS.values()) {
      ClientOptions wrong =
          options(
              ClientSasl.digestMd5(
                  USER, "not-it".toCharArray(), SaslPeers.PROTOCOL, SaslPeers.SERVER_NAME));
      try (ThriftClientPool<BenchService.Client> pool =
          ThriftClientPool.builder(BenchService.Client::new)
              .endpoints(server.localAddress())
              .transportFactory(ClientTransportFactory.of(nettyIo, wrong))
              .build()) {
        assertThatThrownBy(() -> pool.call(c -> c.echo(Payloads.of(10, 1))))
            .satisfies(
                e -> {
                  Throwable t = e;
                  while (t != null && !(t instanceof SaslNegotiationException)) {
                    t = t.getCause();
                  }
                  assertThat(t).as("a SaslNegotiationException in %s", e).isNotNull();
                  SaslNegotiationException refused = (SaslNegotiationException) t;
                  assertThat(refused.mechanism()).isEqualTo("DIGEST-MD5");
                  assertThat(refused.reason()).isNotBlank();
                });
      }
    }
  }
}
