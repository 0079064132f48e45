package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.settings.SettingException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class GrizzlyClientIoTest {

  /** The worker pool's queue used to be unbounded: a slow callback let responses pile up. */
  @Test
  void theWorkerPoolQueueIsBounded() throws Exception {
    try (GrizzlyClientIo worker = GrizzlyClientIo.create(1, IoStrategy.WORKER)) {
      assertThat(worker.workerQueueCapacity())
          .isEqualTo(GrizzlyClientIo.DEFAULT_WORKER_QUEUE_CAPACITY);
    }
    try (GrizzlyClientIo sameThread = GrizzlyClientIo.create(2)) {
      assertThat(sameThread.workerQueueCapacity()).as("no worker pool").isZero();
      assertThat(sameThread.ioStrategy()).isEqualTo(IoStrategy.SAME_THREAD);
    }
  }

  @Test
  void settingsOutOfRangeAreRefusedNamingThem() {
    assertThatThrownBy(() -> GrizzlyClientIo.create(0))
        .isInstanceOf(SettingException.class)
        .hasMessage("ioThreads: 0 (expected: > 0)");
    assertThatThrownBy(() -> GrizzlyClientIo.create(1, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("ioStrategy: null");
  }

  /** A transport over a caller's connection used to connect again when opened after close(). */
  @Test
  void aTransportOverACallersConnectionIsNotReopenedAfterClose() throws Exception {
    try (GrizzlyClientIo resources = GrizzlyClientIo.create();
        ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = (InetSocketAddress) peer.getLocalSocketAddress();
      TTransport transport =
          ThriftClientFilter.transport(resources.connect(address, ClientOptions.defaults()));
      assertThat(transport.isOpen()).isTrue();
      transport.close();
      assertThatThrownBy(transport::open)
          .isInstanceOfSatisfying(
              TTransportException.class,
              e -> assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN));
      assertThat(transport.isOpen()).isFalse();
    }
  }
}
