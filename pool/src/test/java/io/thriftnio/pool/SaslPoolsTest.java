package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.sasl.LibthriftSaslServer;
import io.thriftnio.testkit.sasl.TestKdc;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SASL per connection on all three pools, against libthrift's own blocking {@code
 * TSaslServerTransport}: the channel pool (pipelined calls, wrapped under auth-int and auth-conf),
 * the sync pool through {@code ClientTransportFactory.of(io, options)}, and the stock async pool
 * (auth only), with DIGEST-MD5 and with GSSAPI against the JVM's {@link TestKdc}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaslPoolsTest {

  private static final char[] PASSWORD = "secret".toCharArray();

  private final List<AutoCloseable> closeAfter = new ArrayList<>();
  private NettyClientIo io;

  @BeforeEach
  void start() {
    io = NettyClientIo.create(2);
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
    io.close();
  }

  private LibthriftSaslServer digestServer() throws Exception {
    LibthriftSaslServer server = LibthriftSaslServer.digestMd5("alice", PASSWORD);
    closeAfter.add(server);
    return server;
  }

  private LibthriftSaslServer kerberosServer() throws Exception {
    LibthriftSaslServer server = LibthriftSaslServer.gssapi(TestKdc.shared());
    closeAfter.add(server);
    return server;
  }

  private static ClientSasl digest(SaslQop qop) {
    return ClientSasl.digestMd5("alice", PASSWORD, LibthriftSaslServer.PROTOCOL, TestKdc.HOST)
        .withQop(qop);
  }

  private static ClientSasl kerberos(String user, SaslQop qop) {
    return ClientSasl.gssapi(
            TestKdc.shared().login(user), LibthriftSaslServer.PROTOCOL, TestKdc.HOST)
        .withQop(qop);
  }

  private static ClientOptions options(ClientSasl sasl) {
    return ClientOptions.builder().wireKind(WireKind.SASL).sasl(sasl).build();
  }

  private static PoolConfig twoPerEndpoint() {
    return PoolConfig.builder().maxPerEndpoint(2).maxIdlePerEndpoint(2).build();
  }

  /** 300 pipelined echoes of different sizes, some above 64 KiB: each wrapped and unwrapped. */
  private static void pipelinedEchoes(ThriftChannelPool<BenchService.Client> pool)
      throws Exception {
    List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      ByteBuffer payload = Payloads.of(i % 50 == 0 ? 100_000 : 100 + i, i);
      calls.add(pool.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
    }
    for (int i = 0; i < calls.size(); i++) {
      ByteBuffer echoed = calls.get(i).get(30, TimeUnit.SECONDS);
      assertThat(Payloads.check(echoed, i % 50 == 0 ? 100_000 : 100 + i, i))
          .as("call %d", i)
          .isTrue();
    }
  }

  private ThriftChannelPool<BenchService.Client> channelPool(
      LibthriftSaslServer server, ClientSasl sasl) {
    ThriftChannelPool<BenchService.Client> pool =
        PoolSettings.with(
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(io)
                    .options(options(sasl))
                    .endpoints(server.address()),
                twoPerEndpoint())
            .maxCallsInFlightPerConnection(64)
            .build();
    closeAfter.add(pool);
    return pool;
  }

  @Test
  void channelPoolWrapsPipelinedCallsUnderDigestAuthConf() throws Exception {
    LibthriftSaslServer server = digestServer();

    pipelinedEchoes(channelPool(server, digest(SaslQop.AUTH_CONF)));

    assertThat(server.negotiated()).isNotEmpty().allMatch(n -> n.equals("alice auth-conf"));
  }

  @Test
  void channelPoolWrapsPipelinedCallsUnderKerberosAuthInt() throws Exception {
    LibthriftSaslServer server = kerberosServer();

    pipelinedEchoes(channelPool(server, kerberos("pool-channel-user", SaslQop.AUTH_INT)));

    String expected = TestKdc.shared().principal("pool-channel-user") + " auth-int";
    assertThat(server.negotiated()).isNotEmpty().allMatch(expected::equals);
  }

  @Test
  void channelPoolCallFailsWithTheServersReasonForAWrongPassword() throws Exception {
    LibthriftSaslServer server = digestServer();
    ClientSasl wrong =
        ClientSasl.digestMd5(
            "alice", "wrong".toCharArray(), LibthriftSaslServer.PROTOCOL, TestKdc.HOST);
    ThriftChannelPool<BenchService.Client> pool = channelPool(server, wrong);

    CompletableFuture<ByteBuffer> call =
        pool.call(c -> c.send_echo(Payloads.of(10, 1)), BenchService.Client::recv_echo);

    assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .satisfies(
            e ->
                assertThat(causes(e))
                    .anySatisfy(
                        c ->
                            assertThat(c)
                                .isInstanceOf(SaslNegotiationException.class)
                                .hasMessageContaining("DIGEST-MD5")));
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> all = new ArrayList<>();
    for (Throwable c = e; c != null && !all.contains(c); c = c.getCause()) {
      all.add(c);
    }
    return all;
  }

  private void syncPoolFromManyThreads(LibthriftSaslServer server, ClientSasl sasl)
      throws Exception {
    ThriftClientPool<BenchService.Client> pool =
        PoolSettings.with(
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(server.address())
                    .transportFactory(ClientTransportFactory.of(io, options(sasl))),
                twoPerEndpoint())
            .build();
    closeAfter.add(pool);
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        done.add(
            callers.submit(
                () -> {
                  for (int i = 0; i < 25; i++) {
                    int seed = thread * 1000 + i;
                    int size = 100 + i;
                    ByteBuffer echoed = pool.call(c -> c.echo(Payloads.of(size, seed)));
                    assertThat(Payloads.check(echoed, size, seed)).isTrue();
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      callers.shutdownNow();
    }
    assertThat(pool.stats().created()).isBetween(1L, 2L);
  }

  @Test
  void syncPoolNegotiatesEachConnectionWithDigestAuthInt() throws Exception {
    LibthriftSaslServer server = digestServer();

    syncPoolFromManyThreads(server, digest(SaslQop.AUTH_INT));

    assertThat(server.negotiated()).isNotEmpty().allMatch(n -> n.equals("alice auth-int"));
  }

  @Test
  void syncPoolNegotiatesEachConnectionWithKerberosAuthConf() throws Exception {
    LibthriftSaslServer server = kerberosServer();

    syncPoolFromManyThreads(server, kerberos("pool-sync-user", SaslQop.AUTH_CONF));

    String expected = TestKdc.shared().principal("pool-sync-user") + " auth-conf";
    assertThat(server.negotiated()).isNotEmpty().allMatch(expected::equals);
  }

  private static void asyncEchoes(ThriftAsyncClientPool<BenchService.AsyncClient> pool)
      throws Exception {
    List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ByteBuffer payload = Payloads.of(100 + i, i);
      calls.add(pool.call((client, callback) -> client.echo(payload, callback)));
    }
    for (int i = 0; i < calls.size(); i++) {
      assertThat(Payloads.check(calls.get(i).get(30, TimeUnit.SECONDS), 100 + i, i)).isTrue();
    }
  }

  private ThriftAsyncClientPool<BenchService.AsyncClient> asyncPool(
      LibthriftSaslServer server, ClientSasl sasl) {
    ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        PoolSettings.with(
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(server.address())
                    .options(options(sasl)),
                twoPerEndpoint())
            .selectorThreads(1)
            .build();
    closeAfter.add(pool);
    return pool;
  }

  @Test
  void asyncPoolNegotiatesAuthBeforeTheStockClientTakesTheSocket() throws Exception {
    LibthriftSaslServer digest = digestServer();
    LibthriftSaslServer kerberos = kerberosServer();

    asyncEchoes(asyncPool(digest, digest(SaslQop.AUTH)));
    asyncEchoes(asyncPool(kerberos, kerberos("pool-async-user", SaslQop.AUTH)));

    assertThat(digest.negotiated()).isNotEmpty().allMatch(n -> n.equals("alice auth"));
    String expected = TestKdc.shared().principal("pool-async-user") + " auth";
    assertThat(kerberos.negotiated()).isNotEmpty().allMatch(expected::equals);
  }

  @Test
  void asyncPoolRefusesQualitiesOfProtectionThatWrapAtBuild() {
    ClientSasl conf = digest(SaslQop.AUTH_CONF);

    assertThatThrownBy(
            () ->
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(new InetSocketAddress("127.0.0.1", 1))
                    .options(options(conf))
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "options.sasl qop: [AUTH_CONF] (expected: [AUTH] only: a stock TAsyncClient sends its"
                + " frames unwrapped; use ThriftChannelPool for auth-int and auth-conf)");
  }
}
