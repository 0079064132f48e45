package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.VirtualThreads;
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
 * The conformance suite with {@link IoStrategy#WORKER} on a caller's virtual-thread executor, plus
 * a check that handlers really run on virtual threads. A transport subclasses it with {@link
 * #newTransportBuilder()}. Runs on Java 21+ (CI's newest-JDK leg). JUnit does not inherit
 * {@code @EnabledForJreRange}, so each subclass repeats {@code @EnabledForJreRange(min =
 * JRE.JAVA_21)}; on Java 17 JUnit then reports it disabled by JRE range.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
public abstract class VirtualThreadWorkerSuite extends ServerConformanceSuite {

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
      virtualThreads = null;
    }
  }

  /** A fresh builder of the transport's server, with its defaults. */
  protected abstract ServerBuilder<?> newTransportBuilder();

  @Override
  protected final ServerBuilder<?> newServerBuilder() {
    return newTransportBuilder().workerExecutor(virtualThreads());
  }

  @Override
  protected final IoStrategy strategy() {
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
      try (BenchConnection connection =
          ClientKinds.stockSocket().connect(server.localAddress(), new TBinaryProtocol.Factory())) {
        assertThat(connection.iface().fired()).isZero();
      }
    }
    assertThat(VirtualThreads.isVirtual(ranOn.get())).as("handler thread %s", ranOn.get()).isTrue();
  }
}
