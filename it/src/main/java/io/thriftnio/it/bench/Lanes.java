package io.thriftnio.it.bench;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.testkit.AsyncCaller;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransport;

/**
 * Builds lanes over the two client shapes every transport offers: a framed sync {@link TTransport}
 * and an async {@link ThriftChannel}. Against a raw echo row both send the workload's prepared
 * request frame and compare the echo byte for byte; otherwise they call through the generated
 * client and check the decoded reply.
 */
final class Lanes {

  private Lanes() {}

  /** Opens one framed sync transport. */
  @FunctionalInterface
  interface TransportOpener {
    TTransport open(InetSocketAddress address) throws Exception;
  }

  /** Opens one async channel. */
  @FunctionalInterface
  interface ChannelOpener {
    ThriftChannel open(InetSocketAddress address) throws Exception;
  }

  /**
   * {@code cell.connections()} sync transports, one lane each.
   *
   * @param resources closed after the transports (event loops, selector runners), or null
   */
  static ClientLoad syncConnections(
      CellSpec cell, InetSocketAddress address, TransportOpener opener, AutoCloseable resources)
      throws Exception {
    List<AutoCloseable> open = new ArrayList<>();
    List<ClientLoad.Lane> lanes = new ArrayList<>();
    try {
      for (int i = 0; i < cell.connections(); i++) {
        TTransport transport = opener.open(address);
        open.add(transport::close);
        lanes.add(syncLane(cell, transport));
      }
    } catch (Exception | Error e) {
      closeAll(open, resources);
      throw e;
    }
    return new Connections(lanes, open, resources);
  }

  /**
   * {@code cell.connections()} async channels, one lane each, {@code cell.inFlight()} deep.
   *
   * @param executor decodes replies and starts the next call
   * @param resources closed after the channels, or null
   */
  static ClientLoad asyncConnections(
      CellSpec cell,
      InetSocketAddress address,
      ChannelOpener opener,
      Executor executor,
      AutoCloseable resources)
      throws Exception {
    List<AutoCloseable> open = new ArrayList<>();
    List<ClientLoad.Lane> lanes = new ArrayList<>();
    try {
      for (int i = 0; i < cell.connections(); i++) {
        ThriftChannel channel = opener.open(address);
        open.add(channel::close);
        lanes.add(asyncLane(cell, channel, executor));
      }
    } catch (Exception | Error e) {
      closeAll(open, resources);
      throw e;
    }
    return new Connections(lanes, open, resources);
  }

  /** One blocking lane over an open framed transport. */
  static ClientLoad.SyncLane syncLane(CellSpec cell, TTransport transport) {
    TProtocolFactory protocol = cell.protocolFactory();
    if (cell.raw()) {
      byte[] frame = cell.workload().requestFrame(protocol);
      byte[] echo = new byte[frame.length];
      return () -> {
        transport.write(frame);
        transport.flush();
        transport.readAll(echo, 0, echo.length);
        return Arrays.equals(frame, echo);
      };
    }
    BenchService.Client client = new BenchService.Client(protocol.getProtocol(transport));
    Workload workload = cell.workload();
    return () -> workload.call(client);
  }

  /** One pipelining lane over an open channel. */
  static ClientLoad.AsyncLane asyncLane(CellSpec cell, ThriftChannel channel, Executor executor) {
    int depth = cell.inFlight();
    TProtocolFactory protocol = cell.protocolFactory();
    Workload workload = cell.workload();
    if (cell.raw()) {
      byte[] frame = cell.workload().requestFrame(protocol);
      ByteBuffer expected = ByteBuffer.wrap(frame).asReadOnlyBuffer();
      return new ClientLoad.AsyncLane() {
        @Override
        public int depth() {
          return depth;
        }

        @Override
        public CompletableFuture<Boolean> call() {
          return channel.exchange(ByteBuffer.wrap(frame)).thenApply(expected::equals);
        }
      };
    }
    AsyncCaller<BenchService.Client> caller =
        AsyncCaller.of(channel, BenchService.Client::new, protocol, executor);
    return new ClientLoad.AsyncLane() {
      @Override
      public int depth() {
        return depth;
      }

      @Override
      public CompletableFuture<Boolean> call() {
        return caller.call(workload::send, workload::receive).thenApply(workload::check);
      }
    };
  }

  static void closeAll(List<AutoCloseable> open, AutoCloseable resources) {
    for (AutoCloseable c : open) {
      closeQuietly(c);
    }
    if (resources != null) {
      closeQuietly(resources);
    }
  }

  static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // Closing after a measurement: the numbers are taken, a failing close changes none of them.
      System.err.println("bench: close failed: " + e);
    }
  }

  /** Plain connections, each one lane. */
  private static final class Connections implements ClientLoad {
    private final List<Lane> lanes;
    private final List<AutoCloseable> open;
    private final AutoCloseable resources;
    private boolean closed;

    Connections(List<Lane> lanes, List<AutoCloseable> open, AutoCloseable resources) {
      this.lanes = List.copyOf(lanes);
      this.open = open;
      this.resources = resources;
    }

    @Override
    public List<Lane> lanes() {
      return lanes;
    }

    @Override
    public long connectionsOpened() {
      return open.size();
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        closeAll(open, resources);
      }
    }
  }
}
