package io.thriftnio.zookeeper;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A started {@link ThriftServer} registered in ZooKeeper as an ephemeral node, in Curator's
 * service-discovery format: {@code BASE_PATH/SERVICE_NAME/ID} holding a JSON {@code
 * ServiceInstance} with the name, address and port (and no payload). Clients find it with a {@link
 * ZooKeeperEndpointSource}, or with Curator's own {@code ServiceDiscovery}.
 *
 * <pre>{@code
 * ThriftServer server = NettyThriftServer.builder()...build().start();
 * ZooKeeperRegistration registration =
 *     ZooKeeperRegistration.builder(curator, "/services", "bench").register(server);
 * ...
 * server.close(); // deregisters, waits the grace, then drains
 * }</pre>
 *
 * <p>Leaving is graceful: {@link Builder#register} adds a {@linkplain ThriftServer#beforeDrain
 * hook} to the server, so {@code server.close()} first deletes the node, then waits the {@linkplain
 * Builder#deregisterGrace(Duration) deregister grace} while the server still serves (the time
 * clients take to see the node go and stop choosing the server), and only then stops accepting and
 * drains. Calls already sent finish; none is refused. {@link #close()} does the same without
 * closing the server.
 *
 * <p>When the server's process dies, its ZooKeeper session expires and ZooKeeper deletes the node
 * itself. Curator registers the node again after its client reconnects with a new session. The
 * {@link CuratorFramework} belongs to the caller: it must be started, and it is not closed here.
 */
public final class ZooKeeperRegistration implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperRegistration.class);

  /** Default {@link Builder#deregisterGrace(Duration)}: 1 second. */
  public static final Duration DEFAULT_DEREGISTER_GRACE = Duration.ofSeconds(1);

  private final ServiceDiscovery<Object> discovery;
  private final ServiceInstance<Object> instance;
  private final Duration grace;
  private final String description;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ZooKeeperRegistration(
      ServiceDiscovery<Object> discovery, ServiceInstance<Object> instance, Duration grace) {
    this.discovery = discovery;
    this.instance = instance;
    this.grace = grace;
    this.description =
        "ZooKeeper registration "
            + instance.getName()
            + "/"
            + instance.getId()
            + " of "
            + instance.getAddress()
            + ":"
            + instance.getPort();
  }

  /**
   * A builder.
   *
   * @param curator a started Curator client; not closed by the registration
   * @param basePath where services are registered, e.g. {@code "/services"}
   * @param serviceName the service, e.g. {@code "bench"}; its servers share it
   * @return a new builder
   */
  public static Builder builder(CuratorFramework curator, String basePath, String serviceName) {
    return new Builder(
        Checks.notNull("curator", curator),
        Paths.basePath(basePath),
        Paths.serviceName(serviceName));
  }

  /** The instance id: the last part of the node's path. */
  public String id() {
    return instance.getId();
  }

  /** The address registered. */
  public InetSocketAddress address() {
    return new InetSocketAddress(instance.getAddress(), instance.getPort());
  }

  /**
   * Deletes the node, then waits the deregister grace so that clients stop choosing this server
   * before it stops serving. Idempotent; the server's close runs it through its hook. A failure to
   * delete (ZooKeeper unreachable) is logged: the node then goes with the session.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      discovery.unregisterService(instance);
      log.info(
          "{}: deregistered; serving {} ms more before the drain", description, grace.toMillis());
    } catch (Exception e) {
      log.warn("{}: could not delete the node; it goes when the session ends", description, e);
    }
    try {
      discovery.close();
    } catch (Exception e) {
      log.warn("{}: closing the discovery threw", description, e);
    }
    try {
      TimeUnit.NANOSECONDS.sleep(grace.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread()
          .interrupt(); // restored; the close goes on without the rest of the grace
    }
  }

  @Override
  public String toString() {
    return description + (closed.get() ? " (closed)" : "");
  }

  /** Builds and registers a {@link ZooKeeperRegistration}. */
  public static final class Builder {
    private final CuratorFramework curator;
    private final String basePath;
    private final String serviceName;
    private String address;
    private String id;
    private boolean idSet; // set ids are checked at register; unset is Curator's random one
    private Duration grace = DEFAULT_DEREGISTER_GRACE;

    private Builder(CuratorFramework curator, String basePath, String serviceName) {
      this.curator = curator;
      this.basePath = basePath;
      this.serviceName = serviceName;
    }

    /**
     * The host or IP address clients connect to. Default: the address the server is bound to, which
     * must then be a specific one (not {@code 0.0.0.0} or {@code ::}).
     *
     * @param address not blank
     * @return this builder
     */
    public Builder address(String address) {
      this.address = address == null ? "" : address; // null is refused with blank, at register
      return this;
    }

    /**
     * The instance id, the last part of the node's path. Default: a random UUID, Curator's.
     *
     * @param id not blank, no {@code /}
     * @return this builder
     */
    public Builder id(String id) {
      this.id = id;
      this.idSet = true;
      return this;
    }

    /**
     * How long the server keeps serving after its node is deleted and before it drains: the time
     * clients take to hear of the change. Default {@link #DEFAULT_DEREGISTER_GRACE} (1 s). Zero
     * drains at once, and clients that chose the server a moment before may see its connections
     * close.
     *
     * @param grace {@code >= 0}
     * @return this builder
     */
    public Builder deregisterGrace(Duration grace) {
      this.grace = grace;
      return this;
    }

    /**
     * Registers {@code server} and hooks the deregistration into its close.
     *
     * @param server a started server
     * @return the registration
     * @throws IllegalStateException if the server is not running
     * @throws IllegalArgumentException if no address was given and the server listens on a wildcard
     *     address
     * @throws Exception what Curator threw while registering
     */
    public ZooKeeperRegistration register(ThriftServer server) throws Exception {
      if (address != null && address.isBlank()) {
        throw new SettingException("address", "\"" + address + "\"", "a host or IP address");
      }
      if (idSet) {
        Paths.part("id", id);
      }
      Checks.nonNegative("deregisterGrace", grace);
      Checks.notNull("server", server);
      if (!server.isRunning()) {
        throw new IllegalStateException(
            "server: not running (expected: a started server) " + server.config().bindAddress());
      }
      InetSocketAddress bound = server.localAddress();
      String host = address;
      if (host == null) {
        if (bound.getAddress() == null || bound.getAddress().isAnyLocalAddress()) {
          throw new SettingException(
              "address",
              "none, and the server listens on " + bound,
              "address(...) that clients can reach");
        }
        host = bound.getAddress().getHostAddress();
      }
      var instance =
          ServiceInstance.builder()
              .name(serviceName)
              .address(host)
              .port(bound.getPort())
              .serviceType(ServiceType.DYNAMIC); // ephemeral: gone with the session
      if (id != null) {
        instance.id(id);
      }
      ServiceDiscovery<Object> discovery =
          ServiceDiscoveryBuilder.builder(Object.class).client(curator).basePath(basePath).build();
      ServiceInstance<Object> built = instance.build();
      try {
        discovery.start();
        discovery.registerService(built);
      } catch (Exception e) {
        discovery.close();
        throw e;
      }
      ZooKeeperRegistration registration = new ZooKeeperRegistration(discovery, built, grace);
      if (!server.beforeDrain(registration::close)) {
        registration.close(); // the server began closing meanwhile
        throw new IllegalStateException("server: closing (expected: a running server) " + bound);
      }
      log.info("{}: registered under {}", registration.description, basePath);
      return registration;
    }
  }
}
