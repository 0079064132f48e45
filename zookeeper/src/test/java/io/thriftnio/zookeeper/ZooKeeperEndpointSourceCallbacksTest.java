package io.thriftnio.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.HeldLocks;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryForever;
import org.apache.curator.test.TestingServer;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ZooKeeperEndpointSource} calls its listener under none of its locks, as {@code
 * EndpointSource} promises (issue 38): a listener that reads the source's set from another thread
 * and waits for it does not deadlock Curator's thread, and the sets arrive in order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperEndpointSourceCallbacksTest {

  @Test
  void theListenerRunsUnderNoLockOfTheSource() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        CuratorFramework curator =
            CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryForever(100))) {
      curator.start();
      assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
      ServiceDiscovery<Object> registry =
          ServiceDiscoveryBuilder.builder(Object.class)
              .client(curator)
              .basePath("/services")
              .build();
      registry.start();
      registry.registerService(instance(1));
      ZooKeeperEndpointSource source = ZooKeeperEndpointSource.of(curator, "/services", "bench");
      List<String> held = new CopyOnWriteArrayList<>();
      List<Object> seen = new CopyOnWriteArrayList<>();
      CountDownLatch both = new CountDownLatch(2);
      try {
        source.start(
            endpoints -> {
              held.addAll(HeldLocks.ofLibrary());
              try {
                // What the source published, read on another thread (the pool's books would be).
                seen.add(
                    CompletableFuture.supplyAsync(source::current).get(5, TimeUnit.SECONDS).size());
              } catch (Exception e) {
                seen.add(e);
              }
              both.countDown();
            });
        registry.registerService(instance(2)); // Curator's thread publishes the second set

        assertThat(both.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).containsExactly(1, 2);
        assertThat(held).as("library locks held while the listener ran").isEmpty();
      } finally {
        source.close();
        registry.close();
      }
    }
  }

  private static ServiceInstance<Object> instance(int n) throws Exception {
    return ServiceInstance.<Object>builder()
        .name("bench")
        .id("server-" + n)
        .address("127.0.0." + n)
        .port(9090)
        .build();
  }
}
