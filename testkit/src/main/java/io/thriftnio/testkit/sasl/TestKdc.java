package io.thriftnio.testkit.sasl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import org.apache.kerby.kerberos.kerb.KrbException;
import org.apache.kerby.kerberos.kerb.server.SimpleKdcServer;

/**
 * A Kerberos KDC for the GSSAPI (SASL) tests: Apache Kerby's KDC in this JVM, on a loopback TCP
 * port chosen by the system, with a realm made for the run, principals with random keys exported to
 * keytabs in a temporary directory, and a {@code krb5.conf} that points the JDK at it.
 *
 * <p><b>One KDC per JVM.</b> The JDK finds its Kerberos configuration through the JVM-wide system
 * property {@code java.security.krb5.conf}, so two KDCs cannot serve one JVM. {@link #shared()}
 * starts the KDC on first use and every test class in that JVM (one Surefire fork per module) uses
 * it; it stops when the JVM exits. Tests that need their own principals create them under their own
 * names ({@link #keytab(String)} is idempotent per name). {@link #login} asks the JDK to re-read
 * {@code krb5.conf} ({@code refreshKrb5Config}), so a Kerberos configuration the JDK had loaded
 * before the KDC started does not stand in the way.
 *
 * <p>Service principals are host based, {@code protocol/localhost}: the file turns off DNS
 * canonicalisation, so a SASL server name of {@code localhost} is the name in the ticket.
 */
public final class TestKdc {

  /** The host name in service principals and SASL server names: {@code localhost}. */
  public static final String HOST = "localhost";

  private static TestKdc shared;

  private final SimpleKdcServer kdc;
  private final Path dir;
  private final String realm;
  private final Path krb5Conf;
  private final int port;
  private final Map<String, Path> keytabs = new HashMap<>();

  private TestKdc(SimpleKdcServer kdc, Path dir, String realm, Path krb5Conf, int port) {
    this.kdc = kdc;
    this.dir = dir;
    this.realm = realm;
    this.krb5Conf = krb5Conf;
    this.port = port;
  }

  /**
   * The JVM's KDC, started on first call (a second or so), with {@code java.security.krb5.conf} set
   * to its {@code krb5.conf}.
   *
   * @throws IllegalStateException if that property already names another file: this JVM is set up
   *     for another KDC
   */
  public static synchronized TestKdc shared() {
    if (shared == null) {
      String existing = System.getProperty("java.security.krb5.conf");
      if (existing != null) {
        throw new IllegalStateException(
            "java.security.krb5.conf: " + existing + " (expected: unset, TestKdc sets it)");
      }
      shared = start();
      System.setProperty("java.security.krb5.conf", shared.krb5Conf.toString());
      Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "test-kdc-stop"));
    }
    return shared;
  }

  private static TestKdc start() {
    try {
      Path dir = Files.createTempDirectory("thriftnio-kdc");
      String realm =
          "THRIFTNIO-" + UUID.randomUUID().toString().substring(0, 8).toUpperCase(Locale.ROOT);
      SimpleKdcServer kdc = new SimpleKdcServer();
      kdc.setWorkDir(dir.toFile());
      kdc.setKdcRealm(realm);
      kdc.setKdcHost("127.0.0.1");
      kdc.setAllowUdp(false);
      kdc.setAllowTcp(true);
      LoopbackKdc network = new LoopbackKdc(kdc.getKdcSetting());
      kdc.setInnerKdcImpl(network);
      kdc.init();
      kdc.start();
      Path krb5Conf = dir.resolve("thriftnio-krb5.conf");
      Files.writeString(krb5Conf, krb5Conf(realm, network.port()), StandardCharsets.UTF_8);
      return new TestKdc(kdc, dir, realm, krb5Conf, network.port());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (KrbException e) {
      throw new IllegalStateException("test KDC did not start", e);
    }
  }

  private static String krb5Conf(String realm, int port) {
    // TCP only (udp_preference_limit = 1): the KDC listens on TCP alone. No DNS: the realm and the
    // KDC are named here, and service names stay as the test wrote them.
    return String.join(
        "\n",
        "[libdefaults]",
        "  default_realm = " + realm,
        "  udp_preference_limit = 1",
        "  dns_lookup_kdc = false",
        "  dns_lookup_realm = false",
        "  dns_canonicalize_hostname = false",
        "  rdns = false",
        "  kdc_timeout = 10000",
        "  max_retries = 2",
        "",
        "[realms]",
        "  " + realm + " = {",
        "    kdc = 127.0.0.1:" + port,
        "  }",
        "",
        "[domain_realm]",
        "  " + HOST + " = " + realm,
        "");
  }

  /** This run's realm, for example {@code THRIFTNIO-1A2B3C4D}. */
  public String realm() {
    return realm;
  }

  /** The {@code krb5.conf} written for this KDC. */
  public Path krb5Conf() {
    return krb5Conf;
  }

  /** The loopback TCP port the KDC listens on. */
  public int port() {
    return port;
  }

  /** {@code name@REALM}: a principal name in this realm. */
  public String principal(String name) {
    return name + "@" + realm;
  }

  /**
   * The keytab of principal {@code name} (for example {@code alice} or {@code thrift/localhost}),
   * creating the principal with a random key on first call; later calls return the same file.
   */
  public synchronized Path keytab(String name) {
    Path existing = keytabs.get(name);
    if (existing != null) {
      return existing;
    }
    Path keytab = dir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + ".keytab");
    try {
      kdc.createPrincipal(principal(name));
      kdc.exportPrincipal(principal(name), keytab.toFile());
    } catch (KrbException e) {
      throw new IllegalStateException("principal " + principal(name) + " not created", e);
    }
    keytabs.put(name, keytab);
    return keytab;
  }

  /**
   * Logs principal {@code name} in from its keytab ({@link #keytab(String)}) with the JDK's {@code
   * Krb5LoginModule}, configured by a {@link Configuration} object (no JAAS file): the returned
   * Subject holds a TGT and the principal's keys, so it can act as a GSSAPI client or server.
   */
  public Subject login(String name) {
    return login(name, keytab(name));
  }

  /** As {@link #login(String)}, from the given keytab. */
  public Subject login(String name, Path keytab) {
    Map<String, String> options = new HashMap<>();
    options.put("useKeyTab", "true");
    options.put("keyTab", keytab.toString());
    options.put("principal", principal(name));
    options.put("storeKey", "true");
    options.put("doNotPrompt", "true");
    options.put("isInitiator", "true");
    options.put("refreshKrb5Config", "true");
    AppConfigurationEntry entry =
        new AppConfigurationEntry(
            "com.sun.security.auth.module.Krb5LoginModule",
            LoginModuleControlFlag.REQUIRED,
            options);
    Configuration configuration =
        new Configuration() {
          @Override
          public AppConfigurationEntry[] getAppConfigurationEntry(String ignored) {
            return new AppConfigurationEntry[] {entry};
          }
        };
    try {
      LoginContext login = new LoginContext("thriftnio-test", new Subject(), null, configuration);
      login.login();
      return login.getSubject();
    } catch (LoginException e) {
      throw new IllegalStateException(
          "login of " + principal(name) + " from " + keytab + " failed: " + e.getMessage(), e);
    }
  }

  private void stop() {
    try {
      kdc.stop();
    } catch (KrbException e) {
      // The JVM is exiting; a KDC that does not stop cleanly leaves nothing behind but its files.
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // The JVM is exiting; a temporary directory left behind is harmless.
    }
  }
}
