package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientInterceptionTest {

  private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 9090);

  /** Notes each outcome it is told, and each failure. */
  static final class Outcomes implements ClientInterceptor {
    final List<CallOutcome> seen = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();

    @Override
    public void afterCall(
        ClientCallContext context, CallOutcome outcome, Throwable failure, long nanos) {
      seen.add(outcome);
      failures.add(failure);
    }
  }

  private static TProtocolFactory protocol(String name) {
    switch (name) {
      case "compact":
        return new TCompactProtocol.Factory();
      case "json":
        return new TJSONProtocol.Factory();
      default:
        return new TBinaryProtocol.Factory();
    }
  }

  /** The bytes of an {@code EXCEPTION} reply to {@code echo} carrying {@code x}. */
  private static TMemoryBuffer exceptionReply(TProtocolFactory protocol, TApplicationException x)
      throws TException {
    TMemoryBuffer buffer = new TMemoryBuffer(64);
    TProtocol out = protocol.getProtocol(buffer);
    out.writeMessageBegin(new TMessage("echo", TMessageType.EXCEPTION, 1));
    x.write(out);
    out.writeMessageEnd();
    return buffer;
  }

  private static void assertSameApplicationException(Throwable seen, TApplicationException sent) {
    assertThat(seen).isInstanceOf(TApplicationException.class).hasMessage(sent.getMessage());
    assertThat(((TApplicationException) seen).getType()).isEqualTo(sent.getType());
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact", "json"})
  void aChannelsExceptionReplyIsTheFailureAfterCallSees(String name) throws Exception {
    TProtocolFactory protocol = protocol(name);
    TApplicationException sent =
        new TApplicationException(TApplicationException.UNKNOWN_METHOD, "Invalid method name: 'x'");
    TMemoryBuffer reply = exceptionReply(protocol, sent);
    Outcomes o = new Outcomes();

    ClientInterception.of(List.of(o))
        .begin("echo", 1, TMessageType.CALL, PEER)
        .endWithReply(ByteBuffer.wrap(reply.getArray(), 0, reply.length()), protocol);

    assertThat(o.seen).containsExactly(CallOutcome.APPLICATION_EXCEPTION);
    assertSameApplicationException(o.failures.get(0), sent);
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact", "json"})
  void aConnectionsExceptionReplyIsTheFailureAfterCallSees(String name) throws Exception {
    TProtocolFactory protocol = protocol(name);
    TApplicationException sent =
        new TApplicationException(
            TApplicationException.INTERNAL_ERROR, "Internal error processing echo");
    Outcomes o = new Outcomes();
    InterceptedConnection connection =
        new InterceptedConnection(ClientInterception.of(List.of(o)), PEER);
    // As a generated client sends a call and reads an EXCEPTION reply (TServiceClient).
    TProtocol request = connection.wrap(protocol.getProtocol(new TMemoryBuffer(64)));
    request.writeMessageBegin(new TMessage("echo", TMessageType.CALL, 1));
    request.writeStructBegin(new TStruct("echo_args"));
    request.writeFieldStop();
    request.writeStructEnd();
    request.writeMessageEnd();
    TProtocol reply = connection.wrap(protocol.getProtocol(exceptionReply(protocol, sent)));
    assertThat(reply.readMessageBegin().type).isEqualTo(TMessageType.EXCEPTION);
    TApplicationException thrown = TApplicationException.readFrom(reply);
    reply.readMessageEnd();

    assertThat(o.seen).containsExactly(CallOutcome.APPLICATION_EXCEPTION);
    assertSameApplicationException(o.failures.get(0), thrown);
    assertSameApplicationException(thrown, sent);
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
    call.end(CallOutcome.SUCCESS, null);
    call.endWithFailure(new IOException("late"));
    assertThat(o.seen).containsExactly(CallOutcome.SUCCESS);
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
            CallOutcome.SUCCESS,
            CallOutcome.APPLICATION_EXCEPTION,
            CallOutcome.TRANSPORT_FAILURE,
            CallOutcome.TIMED_OUT,
            CallOutcome.TIMED_OUT,
            CallOutcome.TRANSPORT_FAILURE,
            CallOutcome.ONEWAY);
  }
}
