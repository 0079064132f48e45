package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A call to a server that never answers fails on each of the three pools with one vocabulary: a
 * {@link CallTimeoutException} ({@code TIMED_OUT}) naming the method, the endpoint and the setting
 * {@code callTimeout 300 ms}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TimeoutVocabularyTest {
  private static final ClientOptions OPTIONS =
      ClientOptions.builder()
          .connectTimeout(Duration.ofSeconds(5))
          .callTimeout(Duration.ofMillis(300))
          .build();

  private StubPeer peer;

  @BeforeEach
  void start() throws Exception {
    peer = StubPeer.start();
    peer.mode = StubPeer.Mode.STALL;
  }

  @AfterEach
  void stop() throws Exception {
    peer.close();
  }

  private void assertTimeout(Throwable failure) {
    assertThat(failure)
        .isInstanceOf(CallTimeoutException.class)
        .hasMessageContaining("no response to fired from " + peer.address())
        .hasMessageContaining("within callTimeout 300 ms");
    assertThat(((TTransportException) failure).getType()).isEqualTo(TTransportException.TIMED_OUT);
  }

  @Test
  void syncPool() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(peer.address())
            .options(OPTIONS)
            .build()) {
      Throwable failure = null;
      try {
        pool.call(c -> c.fired());
      } catch (Exception e) {
        failure = e;
      }
      assertTimeout(failure);
    }
  }

  @Test
  void asyncPool() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
            .endpoints(peer.address())
            .options(OPTIONS)
            .build()) {
      assertTimeout(failureOf(pool.<Long>call((c, cb) -> c.fired(cb))));
    }
  }

  @Test
  void channelPool() throws Exception {
    try (NettyClientIo io = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(io)
                .options(OPTIONS)
                .endpoints(peer.address())
                .build()) {
      assertTimeout(failureOf(pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)));
    }
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return f.handle((ok, t) -> t).join();
  }
}
