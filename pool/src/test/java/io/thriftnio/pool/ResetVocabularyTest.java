package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
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
 * A connection reset in the middle of a reply fails the call alike on the three pools and the sync
 * transports: a {@link TTransportException} {@code connection to P failed during call fired:
 * Connection reset}, naming the endpoint and the method, never libthrift's bare {@code
 * java.net.SocketException: Connection reset}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ResetVocabularyTest {
  private static final ClientOptions OPTIONS =
      ClientOptions.builder()
          .connectTimeout(Duration.ofSeconds(5))
          .callTimeout(Duration.ofSeconds(5))
          .build();

  private StubPeer peer;

  @BeforeEach
  void start() throws Exception {
    peer = StubPeer.start();
    peer.mode = StubPeer.Mode.RESET_MID_REPLY;
  }

  @AfterEach
  void stop() throws Exception {
    peer.close();
  }

  private Throwable assertReset(Throwable failure) {
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasMessageStartingWith("connection to " + peer.address() + " failed during call fired: ")
        .hasMessageContaining("reset");
    return failure;
  }

  @Test
  void syncPoolOnStockSockets() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(peer.address())
            .options(OPTIONS)
            .build()) {
      assertReset(failureOf(pool));
    }
  }

  @Test
  void syncPoolOnTheSyncTransport() throws Exception {
    try (NettyClientIo io = NettyClientIo.create(1);
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(peer.address())
                .io(io)
                .options(OPTIONS)
                .build()) {
      assertReset(failureOf(pool));
    }
  }

  @Test
  void asyncPool() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
            .endpoints(peer.address())
            .options(OPTIONS)
            .build()) {
      assertReset(failureOf(pool.<Long>call((c, cb) -> c.fired(cb))));
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
      assertThat(
              assertReset(
                  failureOf(pool.call(c -> c.send_fired(), BenchService.Client::recv_fired))))
          .hasMessageEndingWith("(1 calls were pending)");
    }
  }

  /**
   * A close (FIN) instead of a reply: the peer named, never libthrift's "Socket is closed by peer."
   */
  @Test
  void aCloseUnderACallOnStockSockets() throws Exception {
    peer.mode = StubPeer.Mode.DROP_AFTER_HANDLER;
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(peer.address())
            .options(OPTIONS)
            .build()) {
      Throwable failure = failureOf(pool);
      assertThat(failure)
          .isInstanceOf(TTransportException.class)
          .hasMessage(
              "connection to "
                  + peer.address()
                  + " closed by the peer while waiting for a response");
      assertThat(((TTransportException) failure).getType())
          .isEqualTo(TTransportException.END_OF_FILE);
    }
  }

  private static Throwable failureOf(ThriftClientPool<BenchService.Client> pool) {
    try {
      pool.call(c -> c.fired());
      return null;
    } catch (Exception e) {
      return e;
    }
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return f.handle((ok, t) -> t).join();
  }
}
