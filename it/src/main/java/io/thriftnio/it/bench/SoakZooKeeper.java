package io.thriftnio.it.bench;

import io.thriftnio.pool.EndpointSource;
import io.thriftnio.zookeeper.ZooKeeperEndpointSource;
import io.thriftnio.zookeeper.ZooKeeperRegistration;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryForever;
import org.apache.curator.test.TestingServer;

/**
 * {@code soak --discovery zookeeper}'s ZooKeeper: a real server in this JVM (Curator's {@code
 * TestingServer}, on a free port), one Curator session for the servers' registrations and another
 * for the pools' sources, as a server process and a client process would each have their own.
 */
final class SoakZooKeeper implements AutoCloseable {

  /** ZooKeeper session timeout of both sessions, in milliseconds. */
  static final int SESSION_MILLIS = 10_000;

  private final TestingServer zooKeeper;
  private final CuratorFramework serverSession;
  private final CuratorFramework clientSession;
  private final Duration deregisterGrace;

  private SoakZooKeeper(
      TestingServer zooKeeper,
      CuratorFramework serverSession,
      CuratorFramework clientSession,
      Duration deregisterGrace) {
    this.zooKeeper = zooKeeper;
    this.serverSession = serverSession;
    this.clientSession = clientSession;
    this.deregisterGrace = deregisterGrace;
  }

  /**
   * Starts ZooKeeper and connects both sessions.
   *
   * @param deregisterGrace how long a closing server serves after its node is deleted
   */
  static SoakZooKeeper start(Duration deregisterGrace) throws Exception {
    TestingServer zk = new TestingServer(true);
    CuratorFramework servers = null;
    try {
      servers = connect(zk.getConnectString());
      CuratorFramework clients = connect(zk.getConnectString());
      return new SoakZooKeeper(zk, servers, clients, deregisterGrace);
    } catch (Exception e) {
      if (servers != null) {
        servers.close();
      }
      zk.close();
      throw e;
    }
  }

  private static CuratorFramework connect(String connectString)
      throws IOException, InterruptedException {
    return connect(connectString, SESSION_MILLIS);
  }

  /** A started Curator session, connected, with a session timeout of {@code sessionMillis}. */
  static CuratorFramework connect(String connectString, int sessionMillis)
      throws IOException, InterruptedException {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(sessionMillis)
            .connectionTimeoutMs(5_000)
            .retryPolicy(new RetryForever(100))
            .build();
    c.start();
    if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) {
      c.close();
      throw new IOException("ZooKeeper at " + connectString + ": not connected within 10 s");
    }
    return c;
  }

  /** Where ZooKeeper listens, as Curator's connect string. */
  String connectString() {
    return zooKeeper.getConnectString();
  }

  /**
   * Registers {@code server} under {@link SoakCommand#ZK_BASE_PATH}; its close then deregisters,
   * serves the deregister grace and drains.
   */
  ZooKeeperRegistration register(RunningServer server) throws Exception {
    return register(serverSession, server, deregisterGrace);
  }

  /** Registers {@code server} through {@code session}, as {@link #register(RunningServer)}. */
  static ZooKeeperRegistration register(
      CuratorFramework session, RunningServer server, Duration deregisterGrace) throws Exception {
    if (server.server() == null) {
      throw new IllegalArgumentException(
          "server: " + server.address() + " (expected: one of this library's servers)");
    }
    return ZooKeeperRegistration.builder(session, SoakCommand.ZK_BASE_PATH, SoakCommand.ZK_SERVICE)
        .deregisterGrace(deregisterGrace)
        .register(server.server());
  }

  /** A new source of the registered servers, for one pool. */
  EndpointSource source() {
    return ZooKeeperEndpointSource.of(
        clientSession, SoakCommand.ZK_BASE_PATH, SoakCommand.ZK_SERVICE);
  }

  /** Closes both sessions and ZooKeeper; the servers and pools must be closed first. */
  @Override
  public void close() throws IOException {
    clientSession.close();
    serverSession.close();
    zooKeeper.close();
  }
}
