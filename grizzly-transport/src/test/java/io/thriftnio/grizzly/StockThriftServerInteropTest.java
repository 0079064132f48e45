package io.thriftnio.grizzly;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.TNonblockingServerSocket;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * This module's clients against stock libthrift's {@link TThreadedSelectorServer} (framed): the
 * bytes on the wire are plain {@code TFramedTransport}, whoever serves them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StockThriftServerInteropTest {

  private static final TProtocolFactory PROTOCOL = new TCompactProtocol.Factory();

  private final BenchHandler handler = new BenchHandler();
  private TNonblockingServerSocket socket;
  private TServer server;
  private Thread serving;
  private InetSocketAddress address;
  private GrizzlyClientIo resources;

  @BeforeEach
  void startStockServer() throws Exception {
    socket =
        new TNonblockingServerSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    CountDownLatch started = new CountDownLatch(1);
    server =
        new TThreadedSelectorServer(
            new TThreadedSelectorServer.Args(socket)
                .processor(new BenchService.Processor<>(handler))
                .protocolFactory(PROTOCOL)
                .transportFactory(new TFramedTransport.Factory())
                .selectorThreads(1)
                .workerThreads(4)) {
          @Override
          protected void setServing(boolean serving) {
            super.setServing(serving);
            if (serving) {
              started.countDown();
            }
          }
        };
    serving = new Thread(server::serve, "stock-threaded-selector-server");
    serving.start();
    assertThat(started.await(10, TimeUnit.SECONDS)).as("stock server started").isTrue();
    address = new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getPort());
    resources = GrizzlyClientIo.create();
  }

  @AfterEach
  void stop() throws InterruptedException {
    resources.close();
    server.stop();
    serving.join(10_000);
    socket.close();
  }

  @Test
  void syncTransportCallsEveryKindOfMethod() throws Exception {
    org.apache.thrift.transport.TTransport transport = resources.openTransport(address);
    try {
      BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(transport));
      for (int size : new int[] {1, Payloads.MEDIUM, Payloads.LARGE}) {
        assertThat(Payloads.check(client.echo(Payloads.of(size, size)), size, size)).isTrue();
      }
      assertThat(client.db_work(50)).hasSize(50).contains(BenchHandler.row(49));
      assertThatThrownBy(() -> client.fail(3, "stock")).isInstanceOf(BenchError.class);
      client.fire(Payloads.of(10, 1));
      assertThat(client.fired()).isEqualTo(1);
    } finally {
      transport.close();
    }
  }

  @Test
  void channelPipelinesManyCallsOverOneConnection() throws Exception {
    ExecutorService callbacks = Executors.newFixedThreadPool(2);
    try (io.thriftnio.core.ThriftChannel channel = resources.openChannel(address)) {
      AsyncCaller<BenchService.Client> caller =
          AsyncCaller.of(channel, BenchService.Client::new, PROTOCOL, callbacks);
      List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        ByteBuffer payload = Payloads.of(64 + i, i);
        replies.add(caller.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
      }
      for (int i = 0; i < 200; i++) {
        assertThat(Payloads.check(replies.get(i).get(30, TimeUnit.SECONDS), 64 + i, i))
            .as("reply %d matched to its own call", i)
            .isTrue();
      }
      caller.callOneway(c -> c.send_fire(Payloads.of(5, 5))).get(10, TimeUnit.SECONDS);
      assertThat(
              caller
                  .call(c -> c.send_fired(), BenchService.Client::recv_fired)
                  .get(10, TimeUnit.SECONDS))
          .isEqualTo(1L);
      assertThat(channel.callsInFlight()).isZero();
    } finally {
      callbacks.shutdownNow();
    }
  }
}
