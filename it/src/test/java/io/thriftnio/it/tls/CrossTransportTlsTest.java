package io.thriftnio.it.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Mutual TLS across transports: a Netty client to a Grizzly server, and the other way round. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CrossTransportTlsTest {

  private static final TestPki PKI = TestPki.shared();

  private static ThriftServer start(ServerBuilder<?> builder) throws Exception {
    return builder
        .processor(new BenchService.Processor<>(new BenchHandler()))
        .protocol(new TCompactProtocol.Factory())
        .ioThreads(1)
        .workerThreads(4)
        .tls(PKI.mutualServerTls().build())
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .build()
        .start();
  }

  private static ClientTls clientTls() {
    return PKI.clientTls().keyManagerFactory(PKI.clientKeys()).build();
  }

  private static void callEverything(TTransport transport) throws Exception {
    BenchService.Client client = new BenchService.Client(new TCompactProtocol(transport));
    assertThat(Payloads.check(client.echo(Payloads.of(Payloads.LARGE, 2)), Payloads.LARGE, 2))
        .isTrue();
    assertThat(client.get_last_sale("X").getSymbol()).isEqualTo("X");
    assertThat(client.db_work(3)).hasSize(3);
  }

  @Test
  void nettyClientToGrizzlyServer() throws Exception {
    try (ThriftServer server = start(GrizzlyThriftServer.builder())) {
      TTransport transport =
          NettyClientIo.shared()
              .openTransport(
                  server.localAddress(), ClientOptions.builder().tls(clientTls()).build());
      try {
        callEverything(transport);
      } finally {
        transport.close();
      }
      assertThat(server.stats().tlsFailures()).isZero();
    }
  }

  @Test
  void grizzlyClientToNettyServer() throws Exception {
    try (ThriftServer server = start(NettyThriftServer.builder());
        GrizzlyClientIo resources = GrizzlyClientIo.create()) {
      TTransport transport =
          resources.openTransport(
              server.localAddress(), ClientOptions.builder().tls(clientTls()).build());
      try {
        callEverything(transport);
      } finally {
        transport.close();
      }
      assertThat(server.stats().tlsFailures()).isZero();
    }
  }
}
