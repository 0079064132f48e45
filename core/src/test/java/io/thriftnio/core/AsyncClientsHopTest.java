package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.internal.client.CodecChannel;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The async bridge reaches the caller with one executor hop after the IO thread, whatever callback
 * executor the channel was opened with: the channel's own hop is skipped, and the proxy's callback
 * runs where the caller's future completes.
 */
@Timeout(30)
class AsyncClientsHopTest {

  private final TProtocolFactory protocol = new TBinaryProtocol.Factory();
  private final ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "io"));
  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final CountingExecutor channelCallbacks = new CountingExecutor();
  private final CountingExecutor callerExecutor = new CountingExecutor();

  @AfterEach
  void stop() {
    io.shutdownNow();
    timer.shutdownNow();
    channelCallbacks.pool.shutdownNow();
    callerExecutor.pool.shutdownNow();
  }

  @Test
  void aProxiedCallReachesItsCallbackWithOneHopAfterTheIoThread() throws Exception {
    EchoChannel channel =
        new EchoChannel(ClientOptions.builder().callbackExecutor(channelCallbacks).build());
    MiniClient.AsyncIface iface =
        AsyncClients.asyncIface(
            MiniClient.AsyncIface.class, channel, MiniClient::new, protocol, callerExecutor);
    for (int i = 0; i < 3; i++) {
      CompletableFuture<String> echoed = new CompletableFuture<>();
      List<String> threads = new CopyOnWriteArrayList<>();
      iface.echo(
          "x" + i,
          new AsyncMethodCallback<>() {
            @Override
            public void onComplete(String response) {
              threads.add(Thread.currentThread().getName());
              echoed.complete(response);
            }

            @Override
            public void onError(Exception e) {
              echoed.completeExceptionally(e);
            }
          });
      channel.answer(); // after the proxy call has returned, as from a peer across the network
      assertThat(echoed.get(5, TimeUnit.SECONDS)).isEqualTo("x" + i);
      assertThat(threads).allMatch(name -> name.startsWith("caller"));
    }
    assertThat(channelCallbacks.tasks).as("hops to the channel's executor").hasValue(0);
    assertThat(callerExecutor.tasks).as("hops to the caller's executor").hasValue(3);
  }

  private static final class CountingExecutor implements Executor {
    final AtomicInteger tasks = new AtomicInteger();
    final ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller"));

    @Override
    public void execute(Runnable task) {
      tasks.incrementAndGet();
      pool.execute(task);
    }
  }

  /** A channel whose "IO thread" answers each request from {@link MiniService}. */
  private final class EchoChannel extends CodecChannel {
    private final MemoryChannel service = new MemoryChannel(protocol, 1 << 20);

    EchoChannel(ClientOptions options) {
      super(InetSocketAddress.createUnresolved("memory", 1), options, timer, () -> {});
    }

    @Override
    protected boolean connectionOpen() {
      return true;
    }

    @Override
    public void execute(Runnable drain) {
      io.execute(drain);
    }

    private final BlockingQueue<ByteBuffer> replies = new LinkedBlockingQueue<>();

    @Override
    protected void send(byte[] head, ByteBuffer payload, Consumer<Throwable> done) {
      done.accept(null); // the head (a frame length) is the wire's; the service takes the message
      replies.add(service.exchange(payload).join());
    }

    /** Hands the next reply to the call table on the IO thread. */
    void answer() throws InterruptedException {
      ByteBuffer reply = replies.poll(5, TimeUnit.SECONDS);
      io.execute(() -> onReply(reply));
    }

    @Override
    public void flush() {}

    @Override
    public boolean writable() {
      return true;
    }

    @Override
    public void closeConnection() {}
  }
}
