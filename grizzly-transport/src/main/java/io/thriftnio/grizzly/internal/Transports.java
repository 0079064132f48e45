package io.thriftnio.grizzly.internal;

import io.thriftnio.core.IoStrategy;
import java.util.concurrent.ExecutorService;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.strategies.LeaderFollowerNIOStrategy;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.glassfish.grizzly.strategies.WorkerThreadIOStrategy;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;

/** Builds the TCP transports of servers and clients: named threads, pooled memory. */
public final class Transports {
  private Transports() {}

  /** Grizzly's strategy for one of ours. */
  public static org.glassfish.grizzly.IOStrategy grizzlyStrategy(IoStrategy strategy) {
    switch (strategy) {
      case SAME_THREAD:
        return SameThreadIOStrategy.getInstance();
      case WORKER:
        return WorkerThreadIOStrategy.getInstance();
      case LEADER_FOLLOWER:
        return LeaderFollowerNIOStrategy.getInstance();
      default:
        throw new IllegalArgumentException("ioStrategy: " + strategy);
    }
  }

  /**
   * A TCP transport, not started.
   *
   * @param name thread name prefix, e.g. {@code thrift-nio-grizzly-server}: selector threads are
   *     named {@code <name>-selector(n)}
   * @param strategy the IO strategy
   * @param selectorRunners selector threads
   * @param workerPool the worker pool for {@code WORKER} and {@code LEADER_FOLLOWER}, or {@code
   *     null} for {@code SAME_THREAD}; the transport does not shut it down
   * @param maxPendingWriteBytes the async write queue limit per connection
   * @param daemon whether the selector threads are daemon threads: a server's are not (a running
   *     server keeps the JVM alive), a client's are
   */
  public static TCPNIOTransport newTransport(
      String name,
      IoStrategy strategy,
      int selectorRunners,
      ExecutorService workerPool,
      int maxPendingWriteBytes,
      boolean daemon) {
    TCPNIOTransportBuilder builder =
        TCPNIOTransportBuilder.newInstance()
            .setName(name)
            .setIOStrategy(grizzlyStrategy(strategy))
            .setSelectorRunnersCount(selectorRunners)
            .setSelectorThreadPoolConfig(
                ThreadPoolConfig.defaultConfig()
                    .setPoolName(name + "-selector")
                    .setCorePoolSize(selectorRunners)
                    .setMaxPoolSize(selectorRunners)
                    .setDaemon(daemon))
            .setWorkerThreadPoolConfig(null)
            .setMemoryManager(GrizzlyMemory.pooled())
            .setMaxAsyncWriteQueueSizeInBytes(maxPendingWriteBytes)
            .setReuseAddress(true);
    builder.setTcpNoDelay(true);
    TCPNIOTransport transport = builder.build();
    if (workerPool != null) {
      transport.setWorkerThreadPool(workerPool);
    }
    return transport;
  }
}
