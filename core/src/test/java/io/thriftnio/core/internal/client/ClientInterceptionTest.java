package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientCallOutcome;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;

class ClientInterceptionTest {

  private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 9090);

  /** Notes each outcome it is told. */
  static final class Outcomes implements ClientInterceptor {
    final List<ClientCallOutcome> seen = new ArrayList<>();

    @Override
    public void afterCall(
        ClientCallContext context, ClientCallOutcome outcome, Throwable failure, long nanos) {
      seen.add(outcome);
    }
  }

  @Test
  void noInterceptorsIsNoChainAndTheDefault() {
    assertThat(ClientInterception.of(List.of())).isNull();
    assertThat(ClientOptions.defaults().interceptors()).isEmpty();
  }

  @Test
  void optionsCheckAndKeepTheirInterceptors() {
    Outcomes o = new Outcomes();
    ClientOptions options = ClientOptions.builder().interceptors(List.of(o)).build();
    assertThat(options.toBuilder().build().interceptors()).containsExactly(o);
    assertThat(options.toString()).contains("interceptors=1");
    assertThatThrownBy(() -> ClientOptions.builder().interceptors(Arrays.asList(o, null)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("interceptors[1]: null (expected: not null)");
    assertThatThrownBy(() -> ClientOptions.builder().interceptors(null).build())
        .hasMessage("interceptors: null (expected: a list, empty for none)");
  }

  @Test
  void aCallEndsOnceWhoeverEndsIt() throws Exception {
    Outcomes o = new Outcomes();
    ClientInterception.Call call =
        ClientInterception.of(List.of(o)).begin("echo", 1, TMessageType.CALL, PEER);
    call.end(ClientCallOutcome.SUCCESS, null);
    call.endWithFailure(new IOException("late"));
    assertThat(o.seen).containsExactly(ClientCallOutcome.SUCCESS);
  }

  @Test
  void decodedResultsAndFailuresAreClassified() throws Exception {
    Outcomes o = new Outcomes();
    ClientInterception chain = ClientInterception.of(List.of(o));
    Throwable[] results = {
      null,
      new TApplicationException(TApplicationException.INTERNAL_ERROR, "handler failed"),
      new TApplicationException(TApplicationException.BAD_SEQUENCE_ID, "another call's reply"),
      new CompletionException(new TTransportException(TTransportException.TIMED_OUT, "late")),
      new TimeoutException("stock TAsyncClient"),
      new IOException("reset"),
    };
    for (Throwable r : results) {
      chain.begin("m", 1, TMessageType.CALL, PEER).endWithResult(r);
    }
    chain.begin("m", 2, TMessageType.ONEWAY, PEER).endWithResult(null);

    assertThat(o.seen)
        .containsExactly(
            ClientCallOutcome.SUCCESS,
            ClientCallOutcome.APPLICATION_EXCEPTION,
            ClientCallOutcome.TRANSPORT_FAILURE,
            ClientCallOutcome.TIMEOUT,
            ClientCallOutcome.TIMEOUT,
            ClientCallOutcome.TRANSPORT_FAILURE,
            ClientCallOutcome.ONEWAY);
  }
}
