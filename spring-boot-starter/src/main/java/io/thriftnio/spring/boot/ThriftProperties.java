package io.thriftnio.spring.boot;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code thrift.*} settings: the server ({@code thrift.server.*}) and the client pools ({@code
 * thrift.clients.<name>.*}). A setting left unset keeps the builder's default, so the defaults are
 * those of {@code ServerBuilder}, {@code ClientOptions} and the pool builders; every value is
 * checked by those builders, and a refused one fails the application's start with the builder's
 * message under the property's path, e.g. {@code thrift.server.max-frame-size: -1 (expected: > 0)}.
 *
 * @param server the server's settings
 * @param clients the client pools by name: each becomes a pool bean and a bean of its service's
 *     interface, qualified by the name
 */
@ConfigurationProperties("thrift")
public record ThriftProperties(
    @DefaultValue @NestedConfigurationProperty ThriftServerProperties server,
    Map<String, ThriftClientProperties> clients) {

  /**
   * Fills in the empty map.
   *
   * @param server the server's settings
   * @param clients the client pools by name, {@code null} for none
   */
  public ThriftProperties {
    clients =
        clients == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(clients));
  }
}
