package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.testkit.gen.BenchService;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ThriftAsyncClientPool}'s reply bound is its own {@code maxFrameSize}, on each wire kind it
 * speaks: a server that declares a reply frame over it (1 MiB, under libthrift's default; 2 GiB)
 * fails the call with the library's frame-size failure naming the endpoint, the length and the
 * limit, before the frame is allocated.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AsyncReplyBoundTest {
  private static final int MAX_FRAME_SIZE = 64 * 1024;

  /** Reads one framed request, answers with a length prefix of {@code declared} and 8 bytes. */
  static final class DeclaringServer implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    DeclaringServer(int declared) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t =
          new Thread(
              () -> {
                try {
                  while (true) {
                    Socket s = server.accept();
                    sockets.add(s);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    int length = in.readInt();
                    in.readFully(new byte[length]);
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(declared);
                    out.write(new byte[8]);
                    out.flush();
                  }
                } catch (IOException e) {
                  // closed
                }
              },
              "declaring-server");
      t.setDaemon(true);
      t.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  @ParameterizedTest
  @CsvSource({"FRAMED, 1048576", "FRAMED, 2147483647", "HEADER, 1048576", "HEADER, 2147483647"})
  void replyOverMaxFrameSizeIsRefusedAtThePoolsBound(WireKind wireKind, int declared)
      throws Exception {
    try (DeclaringServer server = new DeclaringServer(declared);
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(server.address())
                .options(
                    ClientOptions.builder().wireKind(wireKind).maxFrameSize(MAX_FRAME_SIZE).build())
                .build()) {
      CompletableFuture<Long> call = pool.call((c, cb) -> c.fired(cb));
      assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class);
      Throwable failure = call.handle((ok, t) -> t).join();
      assertThat(failure)
          .isInstanceOf(TTransportException.class)
          .hasMessageNotContaining("Read call frame")
          .hasMessageContaining(server.address().toString())
          .hasMessageContaining("frame length " + declared)
          .hasMessageContaining("exceeds maxFrameSize " + MAX_FRAME_SIZE)
          .hasCauseInstanceOf(FrameSizeException.class);
      assertThat(((TTransportException) failure).getType())
          .isEqualTo(TTransportException.CORRUPTED_DATA);
    }
  }
}
