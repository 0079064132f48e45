package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.thriftnio.core.ThriftChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class NettyClientIoTest {

  @Test
  void namesItsDaemonThreadsAndClosesIdempotently() throws Exception {
    NettyClientIo resources = NettyClientIo.create(1, NettyTransportType.NIO);
    Thread[] seen = new Thread[1];
    resources
        .eventLoopGroup()
        .submit(() -> seen[0] = Thread.currentThread())
        .get(5, TimeUnit.SECONDS);
    assertThat(seen[0].getName()).isEqualTo("thrift-nio-netty-client-1");
    assertThat(seen[0].isDaemon()).isTrue();
    assertThat(resources.ioTransport()).isEqualTo(NettyTransportType.NIO);
    resources.close();
    resources.close();
    assertThat(resources.eventLoopGroup().isTerminated()).isTrue();
    InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    assertThatThrownBy(() -> resources.openTransport(a))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("client resources closed");
  }

  @Test
  void closeOnItsOwnEventLoopStartsTheShutdownAndReturns() throws Exception {
    NettyClientIo resources = NettyClientIo.create(1, NettyTransportType.NIO);
    EventLoopGroup group = resources.eventLoopGroup();
    CountDownLatch returned = new CountDownLatch(1);
    // As from a channel future listener: waiting for the loop on the loop would take the whole
    // 6 s shutdown wait, since the loop cannot stop while close() runs on it.
    group.execute(
        () -> {
          resources.close();
          returned.countDown();
        });
    assertThat(returned.await(3, TimeUnit.SECONDS)).as("close() returned on the loop").isTrue();
    assertThat(group.terminationFuture().await(5, TimeUnit.SECONDS)).as("terminated").isTrue();
  }

  @Test
  void wrapsACallersGroupAndLeavesItRunningUnlessOwned() {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      NettyClientIo borrowed = NettyClientIo.wrap(group, false);
      assertThat(borrowed.ioTransport()).isEqualTo(NettyTransportType.NIO);
      borrowed.close();
      assertThat(group.isShuttingDown()).isFalse();
      NettyClientIo.wrap(group, true).close();
      assertThat(group.isShuttingDown()).isTrue();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void refusesAGroupWithoutASocketIoHandler() {
    EventLoopGroup plain =
        new MultiThreadIoEventLoopGroup(1, io.netty.channel.local.LocalIoHandler.newFactory());
    try {
      assertThatThrownBy(() -> NettyClientIo.wrap(plain, false))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("expected: a MultiThreadIoEventLoopGroup");
    } finally {
      plain.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void closingTheSharedInstanceFailsLoudlyAndLeavesItWorking() {
    NettyClientIo shared = NettyClientIo.shared();
    assertThatThrownBy(shared::close)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("shared() lives as long as the process");
    assertThat(NettyClientIo.shared()).isSameAs(shared);
    assertThat(shared.eventLoopGroup().isShuttingDown()).isFalse();
    assertThat(shared.isClosed()).isFalse();
  }

  /** Closing resources that do not own their loops used to do nothing at all. */
  @Test
  void closingBorrowedLoopsClosesTheirConnectionsAndRefusesNewOnes() throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = (InetSocketAddress) peer.getLocalSocketAddress();
      NettyClientIo borrowed = NettyClientIo.wrap(group, false);
      ThriftChannel channel = borrowed.openChannel(address);
      TTransport transport = borrowed.openTransport(address);
      borrowed.close();
      assertThat(channel.isOpen()).isFalse();
      assertThat(transport.isOpen()).isFalse();
      assertThatThrownBy(() -> borrowed.openChannel(address))
          .isInstanceOf(TTransportException.class)
          .hasMessage("cannot connect to " + address + ": client resources closed");
      assertThat(group.isShuttingDown()).isFalse();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  /**
   * A channel's close() called on another event loop (a callback that runs there, say) must not
   * wait for the channel's own loop: that loop may be busy, and waiting stalled the caller's loop
   * for up to 3 s.
   */
  @Test
  void closeFromAnotherEventLoopDoesNotWaitForTheChannelsLoop() throws Exception {
    NettyClientIo resources = NettyClientIo.create(1, NettyTransportType.NIO);
    EventLoopGroup other = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    CountDownLatch release = new CountDownLatch(1);
    try (ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ThriftChannel channel =
          resources.openChannel((InetSocketAddress) peer.getLocalSocketAddress());
      // The channel's only loop is busy until the test releases it.
      resources.eventLoopGroup().execute(() -> awaitQuietly(release));
      long elapsedMillis =
          other
              .submit(
                  () -> {
                    long start = System.nanoTime();
                    channel.close();
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                  })
              .get(10, TimeUnit.SECONDS);
      assertThat(elapsedMillis)
          .as("close() on another loop, in ms (it waited 3000)")
          .isLessThan(2500);
      assertThat(channel.isOpen()).isFalse();
    } finally {
      release.countDown();
      other.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      resources.close();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
