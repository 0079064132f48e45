package io.thriftnio.it.bench;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.thriftnio.core.tls.ClientTls;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code grpc}: gRPC-java's client calling {@link GrpcEcho}'s unary echo on the {@code grpc/...}
 * rows, in the shapes of the Thrift scenarios: one call in flight per lane (each lane a caller
 * blocking on its call, {@code tsocket-40}'s shape), or {@code inFlight} calls per channel ({@code
 * async-8x32}'s shape). Each connection is its own {@code ManagedChannel}, one HTTP/2 connection.
 * {@code grpc-loop} drives every channel from the event loop, also at one call in flight: the next
 * call starts from the completion of the last and no caller thread is woken, so the server sees the
 * same load for less client CPU ({@code efficiency --grpc-callers event-loop}).
 *
 * <p>Built so that its own CPU per call stays small: every channel of a cell shares one event loop
 * thread (the load generator has one CPU); listeners run on that thread ({@code directExecutor()}),
 * so a blocking caller is woken once per call, when the call closes, not by gRPC's per-call
 * executor; retries (and their per-call buffering) are off; a call is a bare {@link ClientCall}
 * with one listener, no stub or future wrappers; request and expected reply are the same array.
 */
final class GrpcClientKind implements ClientKindRow {

  private final String name;
  private final boolean loop;

  /**
   * A kind.
   *
   * @param name {@code grpc} or {@code grpc-loop}
   * @param loop drive every lane from the event loop, also at one call in flight per channel
   */
  GrpcClientKind(String name, boolean loop) {
    this.name = name;
    this.loop = loop;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String stack() {
    return GrpcRows.STACK;
  }

  @Override
  public boolean listed() {
    return false;
  }

  @Override
  public String cannotRun(CellSpec cell) {
    if (cell.workload().echoPayload() == null) {
      return name() + " calls echo only (workload " + cell.workload().label() + ")";
    }
    return null;
  }

  @Override
  public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
    ByteBuffer view = cell.workload().echoPayload();
    byte[] payload = new byte[view.remaining()];
    view.get(payload);
    ChannelCredentials credentials = credentials(cell.tls());
    EventLoopGroup group = GrpcEcho.group(1, "bench-grpc-client");
    List<ManagedChannel> channels = new ArrayList<>();
    Load load = new Load(channels, group);
    try {
      for (int i = 0; i < cell.connections(); i++) {
        ManagedChannel channel =
            NettyChannelBuilder.forAddress(address, credentials)
                .eventLoopGroup(group)
                .channelType(GrpcEcho.channel())
                .directExecutor()
                .disableRetry()
                .maxInboundMessageSize(GrpcEcho.MAX_MESSAGE)
                .build();
        channels.add(channel);
        // Connects now, and proves the row answers, so a cell that cannot run says why.
        Echo first = Echo.start(channel, payload, cell.callTimeout());
        if (!first.done.get(cell.callTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException(
              address + " answered the first echo with other bytes than it was sent");
        }
      }
    } catch (ExecutionException e) {
      load.close();
      throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
    } catch (Exception | Error e) {
      load.close();
      throw e;
    }
    List<ClientLoad.Lane> lanes = new ArrayList<>();
    for (ManagedChannel channel : channels) {
      lanes.add(
          loop || cell.inFlight() > 1
              ? asyncLane(channel, payload, Math.max(1, cell.inFlight()))
              : syncLane(channel, payload));
    }
    load.lanes = List.copyOf(lanes);
    return load;
  }

  private static ChannelCredentials credentials(ClientTls tls) {
    if (tls == null) {
      return InsecureChannelCredentials.create();
    }
    // Trusts the run's CA; gRPC verifies the host name against the address (127.0.0.1).
    return TlsChannelCredentials.newBuilder()
        .trustManager(tls.trustManagerFactory().getTrustManagers())
        .build();
  }

  private static ClientLoad.SyncLane syncLane(ManagedChannel channel, byte[] payload) {
    return () -> {
      try {
        return Echo.start(channel, payload, null).done.get();
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
      }
    };
  }

  private static ClientLoad.AsyncLane asyncLane(ManagedChannel channel, byte[] payload, int depth) {
    return new ClientLoad.AsyncLane() {
      @Override
      public int depth() {
        return depth;
      }

      @Override
      public CompletableFuture<Boolean> call() {
        return Echo.start(channel, payload, null).done;
      }
    };
  }

  /** One unary echo: its listener completes {@link #done} with whether the reply is intact. */
  private static final class Echo extends ClientCall.Listener<byte[]> {
    final CompletableFuture<Boolean> done = new CompletableFuture<>();
    private final byte[] sent;
    private byte[] reply;

    private Echo(byte[] sent) {
      this.sent = sent;
    }

    /**
     * Starts a call on {@code channel}.
     *
     * @param deadline the call's deadline, or {@code null} for none (the load engine bounds calls
     *     by closing the channels; a deadline would cost a timer per call)
     */
    static Echo start(ManagedChannel channel, byte[] payload, Duration deadline) {
      CallOptions options =
          deadline == null
              ? CallOptions.DEFAULT
              : CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
      ClientCall<byte[], byte[]> call = channel.newCall(GrpcEcho.ECHO, options);
      Echo echo = new Echo(payload);
      call.start(echo, new Metadata());
      // A unary call has one reply: ask for it before sending, as gRPC's own stubs do.
      call.request(1);
      call.sendMessage(payload);
      call.halfClose();
      return echo;
    }

    @Override
    public void onMessage(byte[] message) {
      reply = message;
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      if (status.isOk()) {
        done.complete(Arrays.equals(sent, reply));
      } else {
        done.completeExceptionally(status.asRuntimeException(trailers));
      }
    }
  }

  /** The channels of one cell and their event loop. */
  private static final class Load implements ClientLoad {
    private final List<ManagedChannel> channels;
    private final EventLoopGroup group;
    private volatile List<Lane> lanes = List.of();
    private boolean closed;

    Load(List<ManagedChannel> channels, EventLoopGroup group) {
      this.channels = channels;
      this.group = group;
    }

    @Override
    public List<Lane> lanes() {
      return lanes;
    }

    @Override
    public long connectionsOpened() {
      return channels.size();
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      // shutdownNow fails calls still in flight, so a caller blocked on one returns.
      channels.forEach(ManagedChannel::shutdownNow);
      for (ManagedChannel c : channels) {
        try {
          c.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
    }
  }
}
