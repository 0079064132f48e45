package io.thriftnio.grizzly.custom;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.grizzly.ThriftClientFilter;
import io.thriftnio.grizzly.ThriftFrameFilter;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransport;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A user's own client chain ending in {@link ThriftClientFilter}, from outside the package: a
 * generated client calls through {@link ThriftClientFilter#transport(Connection)} on it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CustomClientChainTest {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();

  @Test
  void aGeneratedClientCallsThroughAUsersOwnChain() throws Exception {
    ThriftServer server =
        GrizzlyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocol(PROTOCOL)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    TCPNIOTransport transport = TCPNIOTransportBuilder.newInstance().build();
    transport.setProcessor(
        FilterChainBuilder.stateless()
            .add(new TransportFilter())
            .add(new ThriftFrameFilter(64 * 1024))
            .add(new ThriftClientFilter())
            .build());
    try (server) {
      transport.start();
      Connection<?> connection = transport.connect(server.localAddress()).get(10, TimeUnit.SECONDS);
      TTransport thrift = ThriftClientFilter.transport(connection);
      try (thrift) {
        BenchService.Client client = new BenchService.Client(PROTOCOL.getProtocol(thrift));
        assertThat(Payloads.check(client.echo(Payloads.of(32, 7)), 32, 7)).isTrue();
        assertThat(Payloads.check(client.echo(Payloads.of(16, 3)), 16, 3))
            .as("the connection carries the next call")
            .isTrue();
      }
      assertThat(thrift.isOpen()).as("closed with the try").isFalse();
    } finally {
      transport.shutdownNow();
    }
  }
}
