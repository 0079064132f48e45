package io.thriftnio.spring.boot;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.tls.ClientAuth;
import io.thriftnio.core.tls.ServerTls;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Consumer;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** Builds the server from {@code thrift.server.*}, the services and the interceptor beans. */
final class ServerFactory {

  static final String PREFIX = "thrift.server";

  private ServerFactory() {}

  /**
   * The server, built and not started.
   *
   * @param served a {@code TProcessor} or {@code TAsyncProcessor}
   * @param bundles the application's SSL bundles, or {@code null} when it has none
   * @param sasl the application's {@code ServerSasl} bean, or {@code null} when it has none
   * @throws IllegalArgumentException or {@link IllegalStateException} with the builder's message
   *     under the property's path
   */
  static ThriftServer build(
      ThriftServerProperties p,
      Object served,
      List<ServerInterceptor> interceptors,
      SslBundles bundles,
      ServerSasl sasl) {
    ServerBuilder<?> b =
        IoLibraries.serverBuilder(
            IoLibraries.resolve(p.ioLibrary(), PREFIX + ".io-library"), p.ioTransport());
    if (served instanceof TAsyncProcessor async) {
      b.asyncProcessor(async);
    } else {
      b.processor((TProcessor) served);
    }
    b.protocol(p.protocol().factory());
    b.bind(
        p.address() == null
            ? new InetSocketAddress(p.port())
            : new InetSocketAddress(p.address(), p.port()));
    b.interceptors(interceptors);
    set(p.ioStrategy(), b::ioStrategy);
    set(p.ioThreads(), b::ioThreads);
    set(p.workerThreads(), b::workerThreads);
    set(p.workerQueueCapacity(), b::workerQueueCapacity);
    set(p.workerStartTimeout(), b::workerStartTimeout);
    set(p.handlerTimeout(), b::handlerTimeout);
    set(p.queueTimeTarget(), b::queueTimeTarget);
    set(p.boundComputingCalls(), b::boundComputingCalls);
    set(p.maxFrameSize(), b::maxFrameSize);
    set(p.maxConnections(), b::maxConnections);
    set(p.maxCallsInFlightPerConnection(), b::maxCallsInFlightPerConnection);
    set(p.maxPendingWriteBytes(), b::maxPendingWriteBytes);
    set(p.idleTimeout(), b::idleTimeout);
    set(p.frameTimeout(), b::frameTimeout);
    set(p.maxConnectionAge(), b::maxConnectionAge);
    set(p.maxConnectionAgeGrace(), b::maxConnectionAgeGrace);
    set(p.drainTimeout(), b::drainTimeout);
    set(p.httpPath(), b::httpPath);
    set(p.healthPath(), b::healthPath);
    if (p.wireKinds() != null && !p.wireKinds().isEmpty()) {
      List<WireKind> kinds = p.wireKinds();
      b.wireKinds(kinds.get(0), kinds.subList(1, kinds.size()).toArray(WireKind[]::new));
    }
    if (sasl != null) {
      b.sasl(sasl);
    } else if (p.wireKinds() != null && p.wireKinds().contains(WireKind.SASL)) {
      throw new IllegalStateException(
          PREFIX
              + ".wire-kinds: "
              + p.wireKinds()
              + " (expected: a ServerSasl bean in the application with sasl among them, saying the"
              + " mechanisms and who may connect; it has none)");
    }
    if (p.ssl().bundle() != null) {
      b.tls(tls(p.ssl(), bundles));
    } else if (p.ssl().clientAuth() != null) {
      throw new IllegalStateException(
          PREFIX
              + ".ssl.client-auth: "
              + p.ssl().clientAuth()
              + " (expected: unset; ignored without thrift.server.ssl.bundle)");
    }
    return SettingErrors.withPath(PREFIX, ThriftServerProperties.class, b::build);
  }

  private static ServerTls tls(ThriftSslProperties ssl, SslBundles bundles) {
    SslBundle bundle = Bundles.get(bundles, ssl.bundle(), PREFIX + ".ssl.bundle");
    ServerTls.Builder tls = ServerTls.builder(bundle.getManagers().getKeyManagerFactory());
    ClientAuth auth = ssl.clientAuth() == null ? ClientAuth.NONE : ssl.clientAuth();
    tls.clientAuth(auth);
    if (auth != ClientAuth.NONE) {
      tls.trustManagerFactory(bundle.getManagers().getTrustManagerFactory());
    }
    if (bundle.getOptions().getEnabledProtocols() != null) {
      tls.protocols(List.of(bundle.getOptions().getEnabledProtocols()));
    }
    if (bundle.getOptions().getCiphers() != null) {
      tls.cipherSuites(List.of(bundle.getOptions().getCiphers()));
    }
    return SettingErrors.withPath(PREFIX + ".ssl", ThriftSslProperties.class, tls::build);
  }

  private static <T> void set(T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }
}
