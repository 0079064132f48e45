package io.thriftnio.zookeeper;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryForever;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Registration and discovery against a real ZooKeeper server ({@code TestingServer}), with calls
 * running through a pool throughout: a registration is seen by the pool, a graceful close
 * deregisters before the drain and no call fails, a server whose session expires disappears, and
 * the client keeps its set while ZooKeeper is down and recovers after.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperDiscoveryTest {
  private static final String BASE = "/services";
  private static final String SERVICE = "bench";

  /** Short ticks so that sessions can expire within a test: the session minimum is two ticks. */
  private static final int TICK_MILLIS = 200;

  private TestingServer zk;
  private final List<CuratorFramework> curators = new ArrayList<>();
  private final List<ThriftServer> servers = new ArrayList<>();
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong calls = new AtomicLong();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startZooKeeper() throws Exception {
    zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MILLIS, -1), true);
  }

  @AfterEach
  void stopAll() throws Exception {
    stop.set(true);
    callers.shutdownNow();
    closeServersAndCurators();
    zk.close();
  }

  /** Servers first: their close deregisters through their curator, which must still be open. */
  private void closeServersAndCurators() {
    servers.forEach(ThriftServer::close);
    servers.clear();
    curators.forEach(CuratorFramework::close);
    curators.clear();
  }

  private CuratorFramework curator(int sessionMillis) throws InterruptedException {
    return curator(zk.getConnectString(), sessionMillis);
  }

  private CuratorFramework curator(String connectString, int sessionMillis)
      throws InterruptedException {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(sessionMillis)
            .connectionTimeoutMs(1000)
            .retryPolicy(new RetryForever(100))
            .build();
    c.start();
    assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    curators.add(c);
    return c;
  }

  private ThriftServer server() throws Exception {
    ThriftServer s =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioStrategy(IoStrategy.WORKER)
            .ioThreads(1)
            .drainTimeout(Duration.ofSeconds(10))
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start();
    servers.add(s);
    return s;
  }

  private ZooKeeperRegistration register(ThriftServer server, CuratorFramework curator)
      throws Exception {
    return ZooKeeperRegistration.builder(curator, BASE, SERVICE)
        .deregisterGrace(Duration.ofMillis(500))
        .register(server);
  }

  private ThriftClientPool<BenchService.Client> pool(CuratorFramework curator) {
    return ThriftClientPool.builder(BenchService.Client::new)
        .endpointSource(ZooKeeperEndpointSource.of(curator, BASE, SERVICE))
        .maxPerEndpoint(8)
        .borrowTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** Four callers in a loop until {@link #stop}; every failure is kept. */
  private List<Future<?>> callWhileRunning(ThriftClientPool<BenchService.Client> pool) {
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      running.add(
          callers.submit(
              () -> {
                while (!stop.get()) {
                  try {
                    pool.call(
                        c -> {
                          c.sleep(10);
                          return null;
                        });
                    calls.incrementAndGet();
                  } catch (Exception e) {
                    failures.add(e);
                  }
                }
              }));
    }
    return running;
  }

  private void stopCalls(List<Future<?>> running) throws Exception {
    stop.set(true);
    for (Future<?> f : running) {
      f.get(30, TimeUnit.SECONDS);
    }
  }

  private void moreCalls(long n) {
    long from = calls.get();
    await("calls.get() >= from + n")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(calls.get() >= from + n)
                    .as("%s more calls (failures: %s)", n, failures)
                    .isTrue());
  }

  private Collection<ServiceInstance<Object>> registered(CuratorFramework curator)
      throws Exception {
    try (ServiceDiscovery<Object> plain =
        ServiceDiscoveryBuilder.builder(Object.class).client(curator).basePath(BASE).build()) {
      plain.start();
      return plain.queryForInstances(SERVICE);
    }
  }

  private int registeredCount(CuratorFramework curator) {
    try {
      return registered(curator).size();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aGracefulCloseDeregistersBeforeTheDrainAndNoCallFails() throws Exception {
    ThriftServer a = server();
    ThriftServer b = server();
    ZooKeeperRegistration ra = register(a, curator(5000));
    register(b, curator(5000));
    CuratorFramework client = curator(5000);

    // Curator's own reader sees the records: the format is Curator's.
    await("registeredCount(client) == 2").until(() -> registeredCount(client) == 2);
    assertThat(registered(client))
        .extracting(ServiceInstance::getName, ServiceInstance::getAddress, ServiceInstance::getPort)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(SERVICE, "127.0.0.1", a.localAddress().getPort()),
            org.assertj.core.groups.Tuple.tuple(SERVICE, "127.0.0.1", b.localAddress().getPort()));

    try (ThriftClientPool<BenchService.Client> pool = pool(client)) {
      await("pool.endpoints().size() == 2").until(() -> pool.endpoints().size() == 2);
      assertThat(pool.endpoints()).containsExactlyInAnyOrder(a.localAddress(), b.localAddress());
      List<Future<?>> running = callWhileRunning(pool);
      await("a.stats().completedCalls() > 10 && b.stats().completedCalls() > 10")
          .atMost(Duration.ofSeconds(20))
          .until(() -> a.stats().completedCalls() > 10 && b.stats().completedCalls() > 10);

      // Added after the registration's hook, so it runs after it: the node is gone by then.
      List<String> atDrain = new CopyOnWriteArrayList<>();
      a.beforeDrain(
          () -> {
            try {
              for (ServiceInstance<Object> i : registered(client)) {
                atDrain.add(i.getId());
              }
              atDrain.add("pool: " + pool.endpoints());
            } catch (Exception e) {
              atDrain.add(e.toString());
            }
          });
      a.close(); // deregister, 500 ms grace while serving, then drain
      assertThat(atDrain).doesNotContain(ra.id());
      assertThat(atDrain).contains("pool: [" + b.localAddress() + "]");
      long onA = a.stats().completedCalls();
      moreCalls(100);
      stopCalls(running);
      assertThat(failures).as("failed calls").isEmpty();
      assertThat(a.stats().completedCalls()).isEqualTo(onA);
      assertThat(a.stats().failedCalls()).isZero();
      assertThat(pool.endpoints()).containsExactly(b.localAddress());
    }
  }

  @Test
  void aServerWhoseSessionExpiresDisappearsAndCallsGoOnElsewhere() throws Exception {
    ThriftServer a = server();
    ThriftServer b = server();
    CuratorFramework curatorA = curator(1000);
    register(a, curatorA);
    register(b, curator(5000));
    CuratorFramework client = curator(5000);
    try (ThriftClientPool<BenchService.Client> pool = pool(client)) {
      await("pool.endpoints().size() == 2").until(() -> pool.endpoints().size() == 2);
      List<Future<?>> running = callWhileRunning(pool);
      moreCalls(50);

      // The process of a dies: its ZooKeeper connection drops and never comes back, so
      // ZooKeeper expires the session and deletes the node on its own.
      curatorA.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
      curatorA.close();
      await("pool.endpoints().size() == 1")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(pool.endpoints().size() == 1)
                      .as("a left the pool's set: %s", pool.endpoints())
                      .isTrue());
      assertThat(pool.endpoints()).containsExactly(b.localAddress());
      moreCalls(50); // calls that were in flight on a when it left have ended by now
      long onA = a.stats().completedCalls();
      moreCalls(50);
      stopCalls(running);
      assertThat(failures).as("failed calls (a still served: it only lost ZooKeeper)").isEmpty();
      assertThat(a.stats().completedCalls()).as("calls on a after it left").isEqualTo(onA);
    }
  }

  @Test
  void theClientKeepsItsSetWhileZooKeeperIsDownAndRecoversAfter() throws Exception {
    ThriftServer a = server();
    register(a, curator(1000));
    CuratorFramework client = curator(1000);
    CountDownLatch lost = new CountDownLatch(1);
    CountDownLatch back = new CountDownLatch(1);
    client
        .getConnectionStateListenable()
        .addListener(
            (c, state) -> {
              if (state == ConnectionState.LOST) {
                lost.countDown();
              } else if (state == ConnectionState.RECONNECTED && lost.getCount() == 0) {
                back.countDown();
              }
            });
    try (ThriftClientPool<BenchService.Client> pool = pool(client)) {
      assertThat(pool.endpoints()).containsExactly(a.localAddress());
      List<Future<?>> running = callWhileRunning(pool);
      moreCalls(20);

      zk.stop();
      assertThat(lost.await(30, TimeUnit.SECONDS)).as("the client's session is lost").isTrue();
      moreCalls(50); // with ZooKeeper down, on the set the pool last heard
      assertThat(pool.endpoints()).containsExactly(a.localAddress());

      zk.restart();
      assertThat(back.await(30, TimeUnit.SECONDS)).isTrue();
      // A server registered after the outage reaches the pool: the watch is back.
      ThriftServer b = server();
      register(b, curator(5000));
      await("pool.endpoints().contains(b.localAddress())")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(pool.endpoints().contains(b.localAddress()))
                      .as("the new server in %s", pool.endpoints())
                      .isTrue());
      await("pool.endpoints().contains(a.localAddress())")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(pool.endpoints().contains(a.localAddress()))
                      .as(
                          "a, registered again after its session was lost too, in %s",
                          pool.endpoints())
                      .isTrue());
      await("b.stats().completedCalls() > 10")
          .atMost(Duration.ofSeconds(20))
          .until(() -> b.stats().completedCalls() > 10);
      stopCalls(running);
      assertThat(failures).as("failed calls").isEmpty();
    }
  }

  @Test
  void everyMemberOfAnEnsembleRestartedInTurnFailsNoCall() throws Exception {
    try (TestingCluster ensemble = new TestingCluster(3)) {
      ensemble.start();
      String connect = ensemble.getConnectString();
      ThriftServer a = server();
      ThriftServer b = server();
      register(a, curator(connect, 10_000));
      register(b, curator(connect, 10_000));
      CuratorFramework client = curator(connect, 10_000);
      try (ThriftClientPool<BenchService.Client> pool = pool(client)) {
        await("pool.endpoints().size() == 2").until(() -> pool.endpoints().size() == 2);
        List<Future<?>> running = callWhileRunning(pool);
        for (InstanceSpec member : ensemble.getInstances()) {
          assertThat(ensemble.killServer(member)).isTrue();
          moreCalls(30);
          assertThat(ensemble.restartServer(member)).isTrue();
          moreCalls(30);
        }
        // The watch survived: a server registered now reaches the pool.
        ThriftServer c = server();
        register(c, curator(connect, 10_000));
        await("pool.endpoints().size() == 3")
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(pool.endpoints().size() == 3)
                        .as("after the restarts: %s", pool.endpoints())
                        .isTrue());
        await("c.stats().completedCalls() > 5")
            .atMost(Duration.ofSeconds(20))
            .until(() -> c.stats().completedCalls() > 5);
        stopCalls(running);
        assertThat(failures).as("failed calls").isEmpty();
        assertThat(pool.endpoints())
            .containsExactlyInAnyOrder(a.localAddress(), b.localAddress(), c.localAddress());
      } finally {
        closeServersAndCurators(); // while the ensemble still runs
      }
    }
  }
}
