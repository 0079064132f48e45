package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The three pool builders share one shape ({@code options(ClientOptions)}, validation at {@code
 * build()}), and refuse a setting the pool would ignore, naming it.
 */
@Timeout(20)
class PoolBuildersTest {
  private static final InetSocketAddress NOWHERE = new InetSocketAddress("127.0.0.1", 9);
  private static final ClientTls TLS = ClientTls.builder().build();
  private static final ClientInterceptor NOOP = new ClientInterceptor() {};

  @Test
  void aBadValueFailsAtBuildNotAtTheSetter() {
    ThriftClientPool.Builder<BenchService.Client> b =
        ThriftClientPool.builder(BenchService.Client::new).endpoints(null);
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("endpoints[0]: null (expected: not null)");
    assertThatThrownBy(
            () ->
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(NettyClientIo.shared())
                    .endpoints(NOWHERE)
                    .maxCallsInFlightPerConnection(0)
                    .build())
        .hasMessage("maxCallsInFlightPerConnection: 0 (expected: > 0)");
    assertThatThrownBy(
            () ->
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(NOWHERE)
                    .selectorThreads(0)
                    .build())
        .hasMessage("selectorThreads: 0 (expected: > 0)");
  }

  @Test
  void theSyncPoolRefusesOptionsBesideItsOwnFactory() {
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(NOWHERE)
                    .options(ClientOptions.defaults())
                    .transportFactory(endpoint -> null)
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("options: ClientOptions{")
        .hasMessageContaining("(expected: unset with transportFactory");
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(NOWHERE)
                    .options(ClientOptions.builder().interceptors(List.of(NOOP)).build())
                    .build())
        .hasMessageStartingWith("options.interceptors: [")
        .hasMessageContaining("give them to this builder's interceptors(..)");
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(NOWHERE)
                    .options(ClientOptions.builder().wireKind(WireKind.HTTP).build())
                    .build())
        .hasMessageStartingWith("wireKind: HTTP (expected: FRAMED, UNFRAMED or FRAMED with tls");
  }

  @Test
  void theSyncPoolOpensStockSocketsFromTheOptions() {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(NOWHERE)
            .options(
                ClientOptions.builder()
                    .connectTimeout(Duration.ofSeconds(2))
                    .callTimeout(Duration.ofSeconds(3))
                    .wireKind(WireKind.UNFRAMED)
                    .build())
            .build()) {
      assertThat(pool.endpoints()).containsExactly(NOWHERE);
    }
    assertThat(
            ClientTransportFactory.stock(
                    ClientOptions.builder()
                        .connectTimeout(Duration.ofSeconds(2))
                        .callTimeout(Duration.ofSeconds(3))
                        .wireKind(WireKind.UNFRAMED)
                        .build())
                .toString())
        .isEqualTo("stock(UNFRAMED, connectTimeout=2000ms, callTimeout=3000ms)");
  }

  @Test
  void theChannelPoolHasOneLimitPerConnectionItsOwn() {
    assertThatThrownBy(
            () ->
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(NettyClientIo.shared())
                    .endpoints(NOWHERE)
                    .options(ClientOptions.builder().maxCallsInFlightPerConnection(16).build())
                    .maxCallsInFlightPerConnection(32)
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "options.maxCallsInFlightPerConnection: 16 (expected: unset: the pool's own"
                + " maxCallsInFlightPerConnection (32) is the limit of its channels)");
    assertThatThrownBy(
            () ->
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(NettyClientIo.shared())
                    .endpoints(NOWHERE)
                    .options(ClientOptions.builder().interceptors(List.of(NOOP)).build())
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("options.interceptors: [")
        .hasMessageEndingWith(
            "(expected: unset: a pool's interceptors go to its builder's" + " interceptors(..))");
  }

  @Test
  void theChannelPoolOpensChannelsThroughItsIo() {
    assertThatThrownBy(
            () -> ThriftChannelPool.builder(BenchService.Client::new).endpoints(NOWHERE).build())
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "io: null (expected: a ClientIo that opens the channels: NettyClientIo,"
                + " GrizzlyClientIo)");
  }

  @Test
  void pluralSettersReplaceLikeEveryOtherSetter() {
    InetSocketAddress other = new InetSocketAddress("127.0.0.1", 10);
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(NOWHERE)
            .endpoints(other)
            .interceptors(List.of(NOOP))
            .interceptors(List.of())
            .build()) {
      assertThat(pool.endpoints()).containsExactly(other);
    }
  }

  @Test
  void theFlatSettingsAreCheckedAtBuildUnderTheirSettersNames() {
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(NOWHERE)
                    .maxIdlePerEndpoint(2)
                    .minIdlePerEndpoint(3)
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessage("minIdlePerEndpoint: 3 (expected: <= maxIdlePerEndpoint: 2)");
    assertThatThrownBy(
            () ->
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(NettyClientIo.shared())
                    .endpoints(NOWHERE)
                    .retryBudgetRatio(-1)
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessage("retryBudgetRatio: -1.0 (expected: >= 0 and <= 1000)");
    assertThatThrownBy(
            () ->
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(NOWHERE)
                    .backoff(Duration.ofSeconds(3))
                    .maxBackoff(Duration.ofSeconds(2))
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessage("maxBackoff: PT2S (expected: >= backoff: PT3S)");
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(NOWHERE)
                    .idleTimeout(Duration.ofSeconds(-1))
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("idleTimeout: PT-1S (expected: >= 0");
  }

  @Test
  void theAsyncPoolRefusesWhatStockAsyncClientsCannotDo() {
    assertThatThrownBy(
            () ->
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(NOWHERE)
                    .options(ClientOptions.builder().tls(TLS).build())
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("options.tls: ")
        .hasMessageEndingWith(
            "(expected: unset: a stock TAsyncClient (plain TCP) opens the connections and would"
                + " ignore it)");
    assertThatThrownBy(
            () ->
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(NOWHERE)
                    .options(ClientOptions.builder().wireKind(WireKind.UNFRAMED).build())
                    .build())
        .hasMessage(
            "options.wireKind: UNFRAMED (expected: one of [FRAMED, HEADER, SASL], which a stock"
                + " TAsyncClient (plain TCP) speaks)");
  }
}
