package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.util.internal.ChannelClosedException;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A connection that breaks after the handler ran: the caller cannot tell whether it did. A call of
 * a method declared idempotent is retried on another endpoint (and runs twice); any other is not.
 * The async pools' {@code futureIface} proxies ({@code *_FUTURE}) know the method as their {@code
 * asyncIface} proxies do.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IdempotentRetryTest {

  enum Kind {
    SYNC,
    ASYNC,
    ASYNC_FUTURE,
    CHANNEL,
    CHANNEL_FUTURE
  }

  /** echo and get_last_sale through one kind of pool, by the route that knows the method. */
  interface Calls extends AutoCloseable {
    ByteBuffer echo(ByteBuffer payload) throws Exception;

    TradeReport lastSale(String symbol) throws Exception;

    PoolStats stats();

    @Override
    void close();
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    try {
      return f.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
    }
  }

  private static <T> AsyncMethodCallback<T> into(CompletableFuture<T> f) {
    return new AsyncMethodCallback<>() {
      @Override
      public void onComplete(T response) {
        f.complete(response);
      }

      @Override
      public void onError(Exception e) {
        f.completeExceptionally(e);
      }
    };
  }

  static Calls pool(Kind kind, PoolConfig config, InetSocketAddress... endpoints) {
    switch (kind) {
      case SYNC:
        {
          ThriftClientPool<BenchService.Client> p =
              PoolSettings.with(
                      ThriftClientPool.builder(BenchService.Client::new).endpoints(endpoints),
                      config)
                  .idempotent("echo")
                  .build();
          BenchService.Iface iface = p.iface(BenchService.Iface.class);
          return new Calls() {
            @Override
            public ByteBuffer echo(ByteBuffer payload) throws Exception {
              return iface.echo(payload);
            }

            @Override
            public TradeReport lastSale(String symbol) throws Exception {
              return iface.get_last_sale(symbol);
            }

            @Override
            public PoolStats stats() {
              return p.stats();
            }

            @Override
            public void close() {
              p.close();
            }
          };
        }
      case ASYNC:
        {
          ThriftAsyncClientPool<BenchService.AsyncClient> p =
              PoolSettings.with(
                      ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                          .endpoints(endpoints),
                      config)
                  .idempotent(name -> name.equals("echo"))
                  .build();
          BenchService.AsyncIface iface = p.asyncIface(BenchService.AsyncIface.class);
          return new Calls() {
            @Override
            public ByteBuffer echo(ByteBuffer payload) throws Exception {
              CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
              iface.echo(payload, into(f));
              return await(f);
            }

            @Override
            public TradeReport lastSale(String symbol) throws Exception {
              CompletableFuture<TradeReport> f = new CompletableFuture<>();
              iface.get_last_sale(symbol, into(f));
              return await(f);
            }

            @Override
            public PoolStats stats() {
              return p.stats();
            }

            @Override
            public void close() {
              p.close();
            }
          };
        }
      case ASYNC_FUTURE:
        return futures(
            PoolSettings.with(
                    ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                        .endpoints(endpoints),
                    config)
                .idempotent("echo")
                .build(),
            ThriftAsyncClientPool::futureIface,
            ThriftAsyncClientPool::stats);
      case CHANNEL_FUTURE:
        return futures(
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(ChannelIo.of(SocketThriftChannel::connect))
                        .endpoints(endpoints),
                    config)
                .idempotent("echo")
                .build(),
            ThriftChannelPool::futureIface,
            ThriftChannelPool::stats);
      default:
        {
          ThriftChannelPool<BenchService.Client> p =
              PoolSettings.with(
                      ThriftChannelPool.builder(BenchService.Client::new)
                          .io(ChannelIo.of(SocketThriftChannel::connect))
                          .endpoints(endpoints),
                      config)
                  .idempotent("echo")
                  .build();
          return new Calls() {
            @Override
            public ByteBuffer echo(ByteBuffer payload) throws Exception {
              return await(p.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
            }

            @Override
            public TradeReport lastSale(String symbol) throws Exception {
              return await(
                  p.call(
                      c -> c.send_get_last_sale(symbol), BenchService.Client::recv_get_last_sale));
            }

            @Override
            public PoolStats stats() {
              return p.stats();
            }

            @Override
            public void close() {
              p.close();
            }
          };
        }
    }
  }

  /** {@code pool}'s calls through its {@code FutureIface} proxy. */
  private static <P extends AutoCloseable> Calls futures(
      P pool,
      BiFunction<P, Class<BenchService.FutureIface>, BenchService.FutureIface> proxy,
      Function<P, PoolStats> stats) {
    BenchService.FutureIface iface = proxy.apply(pool, BenchService.FutureIface.class);
    return new Calls() {
      @Override
      public ByteBuffer echo(ByteBuffer payload) throws Exception {
        return await(iface.echo(payload));
      }

      @Override
      public TradeReport lastSale(String symbol) throws Exception {
        return await(iface.get_last_sale(symbol));
      }

      @Override
      public PoolStats stats() {
        return stats.apply(pool);
      }

      @Override
      public void close() {
        try {
          pool.close();
        } catch (Exception e) {
          throw new IllegalStateException(e); // the pools' close() declares none
        }
      }
    };
  }

  /** Round robin: the first call goes to the first endpoint, the breaking one. */
  private static PoolConfig.Builder config() {
    return PoolConfig.builder().balancer(Balancer.ROUND_ROBIN);
  }

  private static ByteBuffer payload() {
    return ByteBuffer.wrap("twice is fine".getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCallThatMayHaveRunIsNotRetriedUnlessItsMethodIsIdempotent(Kind kind) throws Exception {
    try (StubPeer breaking = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        Calls pool = pool(kind, config().build(), breaking.address(), healthy.address())) {
      breaking.mode = StubPeer.Mode.DROP_AFTER_HANDLER;
      assertThatThrownBy(() -> pool.lastSale("ACME")).isInstanceOf(TTransportException.class);
      assertThat(breaking.handled).as("the handler ran once").hasValue(1);
      assertThat(healthy.handled).as("and never elsewhere").hasValue(0);
      assertThat(pool.stats().retries()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anIdempotentCallIsRetriedOnAnotherEndpoint(Kind kind) throws Exception {
    try (StubPeer breaking = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        Calls pool = pool(kind, config().build(), breaking.address(), healthy.address())) {
      breaking.mode = StubPeer.Mode.DROP_AFTER_HANDLER;
      assertThat(pool.echo(payload())).isEqualTo(payload());
      assertThat(breaking.handled).hasValue(1);
      assertThat(healthy.handled).as("run again elsewhere").hasValue(1);
      PoolStats stats = pool.stats();
      assertThat(stats.retries()).isEqualTo(1);
      assertThat(stats.retriesRefused()).isZero();
    }
  }

  /** A channel that refuses every call as closed before writing it: the race it stands for. */
  private static ThriftChannel refusingAsClosed(ThriftChannel real) {
    return new ThriftChannel() {
      @Override
      public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
        return CompletableFuture.failedFuture(
            new ChannelClosedException(
                "channel to " + real.remoteAddress() + " is closed (test); call not sent"));
      }

      @Override
      public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
        return exchange(request);
      }

      @Override
      public CompletableFuture<Void> send(ByteBuffer request) {
        return real.send(request);
      }

      @Override
      public int callsInFlight() {
        return real.callsInFlight();
      }

      @Override
      public boolean isOpen() {
        return real.isOpen();
      }

      @Override
      public SocketAddress remoteAddress() {
        return real.remoteAddress();
      }

      @Override
      public void close() {
        real.close();
      }
    };
  }

  @org.junit.jupiter.api.Test
  void aCallTheChannelDidNotSendIsRetriedWhateverItsMethod() throws Exception {
    try (StubPeer refusing = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(
                            ChannelIo.of(
                                endpoint -> {
                                  SocketThriftChannel c = SocketThriftChannel.connect(endpoint);
                                  return endpoint.equals(refusing.address())
                                      ? refusingAsClosed(c)
                                      : c;
                                }))
                        .endpoints(refusing.address(), healthy.address()),
                    config().build())
                .build()) {
      TradeReport report =
          pool.call(c -> c.send_get_last_sale("ACME"), BenchService.Client::recv_get_last_sale)
              .get(10, TimeUnit.SECONDS);
      assertThat(report.getSymbol()).isEqualTo("ACME");
      assertThat(refusing.handled).hasValue(0);
      assertThat(healthy.handled).hasValue(1);
      assertThat(pool.stats().retries()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anIdempotentCallIsNotRetriedWithTheBudgetSpent(Kind kind) throws Exception {
    PoolConfig noBudget =
        config()
            .retryBudget(RetryBudgetConfig.builder().ratio(0).minRetriesPerSecond(0).build())
            .build();
    try (StubPeer breaking = StubPeer.start();
        StubPeer healthy = StubPeer.start();
        Calls pool = pool(kind, noBudget, breaking.address(), healthy.address())) {
      breaking.mode = StubPeer.Mode.DROP_AFTER_HANDLER;
      Throwable failure = null;
      try {
        pool.echo(payload());
      } catch (Exception e) {
        failure = e;
      }
      assertThat(failure).isInstanceOf(TTransportException.class);
      assertThat(failure.getSuppressed())
          .singleElement()
          .satisfies(
              s ->
                  assertThat(s)
                      .hasMessageContaining("idempotent echo not retried: retry budget exhausted")
                      .hasMessageContaining("total="));
      assertThat(healthy.handled).hasValue(0);
      assertThat(pool.stats().retriesRefused()).isEqualTo(1);
    }
  }
}
