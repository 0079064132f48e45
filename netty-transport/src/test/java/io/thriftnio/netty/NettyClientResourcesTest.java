package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class NettyClientResourcesTest {

  @Test
  void namesItsDaemonThreadsAndClosesIdempotently() throws Exception {
    NettyClientResources resources = NettyClientResources.create(1, NettyTransportType.NIO);
    Thread[] seen = new Thread[1];
    resources
        .eventLoopGroup()
        .submit(() -> seen[0] = Thread.currentThread())
        .get(5, TimeUnit.SECONDS);
    assertThat(seen[0].getName()).isEqualTo("thrift-nio-netty-client-1");
    assertThat(seen[0].isDaemon()).isTrue();
    assertThat(resources.transport()).isEqualTo(NettyTransportType.NIO);
    resources.close();
    resources.close();
    assertThat(resources.eventLoopGroup().isTerminated()).isTrue();
    InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    assertThatThrownBy(() -> TNettyTransport.builder(a).resources(resources).open())
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("client resources closed");
  }

  @Test
  void closeOnItsOwnEventLoopStartsTheShutdownAndReturns() throws Exception {
    NettyClientResources resources = NettyClientResources.create(1, NettyTransportType.NIO);
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
      NettyClientResources borrowed = NettyClientResources.wrap(group, false);
      assertThat(borrowed.transport()).isEqualTo(NettyTransportType.NIO);
      borrowed.close();
      assertThat(group.isShuttingDown()).isFalse();
      NettyClientResources.wrap(group, true).close();
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
      assertThatThrownBy(() -> NettyClientResources.wrap(plain, false))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("expected: a MultiThreadIoEventLoopGroup");
    } finally {
      plain.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void sharedIsOneInstanceThatIgnoresClose() {
    NettyClientResources shared = NettyClientResources.shared();
    shared.close();
    assertThat(NettyClientResources.shared()).isSameAs(shared);
    assertThat(shared.eventLoopGroup().isShuttingDown()).isFalse();
  }
}
