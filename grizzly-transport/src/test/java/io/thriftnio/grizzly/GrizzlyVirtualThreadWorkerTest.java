package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.VirtualThreads;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * The conformance suite with {@link IoStrategy#WORKER} on a caller's virtual-thread executor.
 * Runs on Java 21+ (CI's newest-JDK leg); on Java 17 JUnit reports it disabled by JRE range.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class GrizzlyVirtualThreadWorkerTest extends ConformanceSuite {

  private static ExecutorService virtualThreads;

  private static synchronized ExecutorService virtualThreads() {
    if (virtualThreads == null) {
      virtualThreads = VirtualThreads.newPerTaskExecutor();
    }
    return virtualThreads;
  }

  @AfterAll
  static synchronized void shutDownExecutor() {
    if (virtualThreads != null) {
      virtualThreads.shutdownNow();
    }
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder().workerExecutor(virtualThreads());
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }

  @Test
  void handlersRunOnVirtualThreads() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public long fired() {
            ranOn.set(Thread.currentThread());
            return super.fired();
          }
        };
    try (ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(handler))
            .ioStrategy(IoStrategy.WORKER)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start()) {
      try (var connection =
          ClientKinds.stockSocket().connect(server.localAddress(), new TBinaryProtocol.Factory())) {
        assertThat(connection.iface().fired()).isZero();
      }
    }
    assertThat(VirtualThreads.isVirtual(ranOn.get())).as("handler thread %s", ranOn.get()).isTrue();
  }
}
