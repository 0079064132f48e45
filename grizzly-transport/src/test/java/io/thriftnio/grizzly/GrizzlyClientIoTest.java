package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.settings.SettingException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class GrizzlyClientIoTest {

  /** The worker pool's queue used to be unbounded: a slow callback let responses pile up. */
  @Test
  void theWorkerPoolQueueIsBounded() throws Exception {
    try (GrizzlyClientIo worker =
        GrizzlyClientIo.builder()
            .ioStrategy(IoStrategy.WORKER)
            .workerThreads(2)
            .workerQueueCapacity(4)
            .build()) {
      assertThat(worker.workerQueueCapacity()).isEqualTo(4);
    }
    try (GrizzlyClientIo defaults =
        GrizzlyClientIo.builder().ioStrategy(IoStrategy.WORKER).build()) {
      assertThat(defaults.workerQueueCapacity())
          .isEqualTo(GrizzlyClientIo.DEFAULT_WORKER_QUEUE_CAPACITY);
    }
    assertThatThrownBy(
            () ->
                GrizzlyClientIo.builder()
                    .ioStrategy(IoStrategy.WORKER)
                    .workerQueueCapacity(0)
                    .build())
        .hasMessage("workerQueueCapacity: 0 (expected: > 0)");
  }

  /** A worker setting with SAME_THREAD, the default, did nothing and was accepted. */
  @Test
  void workerSettingsWithoutWorkersAreRefusedAtBuild() {
    assertThatThrownBy(() -> GrizzlyClientIo.builder().workerThreads(8).build())
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "workerThreads: 8 (expected: unset; ignored with ioStrategy SAME_THREAD, which runs no"
                + " workers)");
    assertThatThrownBy(() -> GrizzlyClientIo.builder().ioThreads(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ioThreads: 0 (expected: > 0)");
  }

  /** A transport over a caller's connection used to connect again when opened after close(). */
  @Test
  void aTransportOverACallersConnectionIsNotReopenedAfterClose() throws Exception {
    try (GrizzlyClientIo resources = GrizzlyClientIo.create();
        ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = (InetSocketAddress) peer.getLocalSocketAddress();
      TGrizzlyClientTransport transport =
          TGrizzlyClientTransport.create(resources.connect(address, ClientOptions.defaults()));
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
