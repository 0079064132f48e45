package io.thriftnio.spring.boot;

import io.thriftnio.core.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * {@code thrift} in {@code /actuator/info}: the versions of thrift-nio and libthrift, and the
 * server's port, IO strategy, wire kinds and services; the pools' names and types.
 */
final class ThriftInfoContributor implements InfoContributor {

  private final ObjectProvider<ThriftServerLifecycle> server;
  private final ThriftPools pools;

  ThriftInfoContributor(ObjectProvider<ThriftServerLifecycle> server, ThriftPools pools) {
    this.server = server;
    this.pools = pools;
  }

  @Override
  public void contribute(Info.Builder builder) {
    Map<String, Object> thrift = new LinkedHashMap<>();
    thrift.put("version", version());
    thrift.put("libthrift", libthriftVersion());
    ThriftServerLifecycle s = server.getIfAvailable();
    if (s != null) {
      ServerConfig config = s.server().config();
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("state", s.state().name());
      s.localAddress().ifPresent(a -> detail.put("port", a.getPort()));
      detail.put("ioStrategy", config.ioStrategy().name());
      detail.put("wireKinds", config.wireKinds().stream().map(Enum::name).toList());
      detail.put("tls", config.tls() != null);
      detail.put("services", s.services());
      thrift.put("server", detail);
    }
    Map<String, Object> clients = new LinkedHashMap<>();
    pools.all().forEach((name, p) -> clients.put(name, p.type()));
    if (!clients.isEmpty()) {
      thrift.put("clients", clients);
    }
    builder.withDetail("thrift", thrift);
  }

  /** This module's version, written into {@code thrift-nio.properties} by the build. */
  static String version() {
    try (InputStream in =
        ThriftInfoContributor.class.getResourceAsStream("thrift-nio.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown"; // a resource of our own jar that cannot be read: the version is unknown
    }
  }

  private static String libthriftVersion() {
    String v = org.apache.thrift.TProcessor.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }
}
