package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.testkit.AsyncCaller;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.TNonblockingServer;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.TNonblockingServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * This module's sync and async clients against libthrift's own framed servers: byte compatibility
 * in the direction the conformance suite does not cover (stock client to our server is the suite's
 * default client kind).
 */
@Timeout(60)
class StockServerInteropTest {

  private static final TProtocolFactory PROTOCOL = new TCompactProtocol.Factory();

  private TServer stock;
  private Thread serving;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (stock != null) {
      stock.stop();
      serving.join(10_000);
    }
  }

  static Stream<Arguments> servers() {
    return Stream.of(Arguments.of("TThreadedSelectorServer"), Arguments.of("TNonblockingServer"));
  }

  private InetSocketAddress startStock(String kind, BenchHandler handler) throws Exception {
    TNonblockingServerSocket socket =
        new TNonblockingServerSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    BenchService.Processor<BenchHandler> processor = new BenchService.Processor<>(handler);
    if (kind.equals("TThreadedSelectorServer")) {
      stock =
          new TThreadedSelectorServer(
              new TThreadedSelectorServer.Args(socket)
                  .selectorThreads(1)
                  .workerThreads(4)
                  .processor(processor)
                  .protocolFactory(PROTOCOL));
    } else {
      stock =
          new TNonblockingServer(
              new TNonblockingServer.Args(socket).processor(processor).protocolFactory(PROTOCOL));
    }
    serving = new Thread(stock::serve, "stock-" + kind);
    serving.setDaemon(true);
    serving.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!stock.isServing()) {
      assertThat(System.nanoTime()).as("%s serving within 10 s", kind).isLessThan(deadline);
      Thread.sleep(5); // polling the server's own flag: it has no start callback
    }
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getPort());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void syncTransportCallsAStockServer(String kind) throws Exception {
    BenchHandler handler = new BenchHandler();
    InetSocketAddress address = startStock(kind, handler);
    org.apache.thrift.transport.TTransport transport =
        NettyClientKinds.RESOURCES.openTransport(address);
    closeables.add(transport::close);
    BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));

    assertThat(Payloads.check(client.echo(Payloads.of(Payloads.LARGE, 7)), Payloads.LARGE, 7))
        .isTrue();
    assertThat(client.get_last_sale("STK").getSymbol()).isEqualTo("STK");
    assertThat(client.db_work(50)).hasSize(50).contains(BenchHandler.row(49));
    assertThatThrownBy(() -> client.fail(11, "eleven"))
        .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(11));
    client.fire(Payloads.of(10, 1));
    client.fire(Payloads.of(10, 2));
    assertThat(client.fired()).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void asyncChannelCallsAStockServer(String kind) throws Exception {
    BenchHandler handler = new BenchHandler();
    InetSocketAddress address = startStock(kind, handler);
    NettyThriftChannel channel =
        (NettyThriftChannel) NettyClientKinds.RESOURCES.openChannel(address);
    closeables.add(channel);
    AsyncCaller<BenchService.Client> caller =
        AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, ForkJoinPool.commonPool());

    List<CompletableFuture<ByteBuffer>> echoes = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      ByteBuffer p = Payloads.of(Payloads.MEDIUM, i);
      echoes.add(caller.call(c -> c.send_echo(p), BenchService.Client::recv_echo));
    }
    for (int i = 0; i < 50; i++) {
      assertThat(Payloads.check(echoes.get(i).get(20, TimeUnit.SECONDS), Payloads.MEDIUM, i))
          .as("pipelined echo %d", i)
          .isTrue();
    }
    ByteBuffer large = Payloads.of(Payloads.LARGE, 3);
    assertThat(
            Payloads.check(
                caller
                    .call(c -> c.send_echo(large), BenchService.Client::recv_echo)
                    .get(20, TimeUnit.SECONDS),
                Payloads.LARGE,
                3))
        .isTrue();
    CompletableFuture<Void> failing =
        caller.call(
            c -> c.send_fail(12, "twelve"),
            c -> {
              c.recv_fail();
              return null;
            });
    assertThatThrownBy(() -> failing.get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(BenchError.class);
    ByteBuffer p = Payloads.of(10, 1);
    caller.callOneway(c -> c.send_fire(p)).get(20, TimeUnit.SECONDS);
    assertThat(
            caller
                .call(c -> c.send_fired(), BenchService.Client::recv_fired)
                .get(20, TimeUnit.SECONDS))
        .isEqualTo(1L);
  }
}
