package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;

/** One text for one failure, whichever IO library raised it. */
class ClientErrorsTest {

  private static final InetSocketAddress PEER = InetSocketAddress.createUnresolved("db1", 9090);

  @Test
  void aRefusedConnectReadsTheSameFromTheJdkNettyAndNettysNativeTransports() {
    for (String raised :
        new String[] {
          "Connection refused", // JDK, Grizzly
          "Connection refused: localhost/127.0.0.1:9090", // Netty NIO
          "finishConnect(..) failed with error(-111): Connection refused", // Netty epoll
          "connect(..) failed: Connection refused" // Netty native, older form
        }) {
      TTransportException e = ClientErrors.connectFailed(PEER, new ConnectException(raised));
      assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN);
      assertThat(e.getMessage()).isEqualTo("cannot connect to db1:9090: Connection refused");
    }
  }

  @Test
  void aFailureWithoutAMessageIsNamedByItsClass() {
    assertThat(ClientErrors.describe(new IllegalStateException()))
        .isEqualTo("IllegalStateException");
  }
}
