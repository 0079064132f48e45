package io.thriftnio.core.internal.client;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.internal.client.ClientInterception.Call;
import io.thriftnio.core.util.internal.ArgumentHeaders;
import io.thriftnio.core.util.internal.ContextAccess;
import io.thriftnio.core.util.internal.MessageHeaders.ReplyKind;
import java.net.SocketAddress;
import java.util.Map;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolDecorator;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.scheme.StandardScheme;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TTransportException;

/**
 * Runs interceptors around the calls a generated client makes on one connection, through its
 * protocols: {@link #wrap(TProtocol)} (or {@link #wrap(TProtocolFactory)}) decorates them so that
 * {@code writeMessageBegin} starts a call, before a byte of it is written, and reading a reply to
 * its {@code readMessageEnd} ends it with what the reply carried (read as it goes by, never twice).
 * A call that fails otherwise (a write or flush failure, a timeout reported elsewhere) is ended by
 * {@link #settle(Throwable)}, which the pool calls once the client is done with.
 *
 * <pre>
 *  send_echo: writeMessageBegin -&gt; beforeCall... (a refusal throws here: nothing written)
 *  recv_echo: readMessageBegin (type) .. readFieldBegin (first result field) .. readMessageEnd
 *             -&gt; afterCall(SUCCESS | DECLARED_EXCEPTION | APPLICATION_EXCEPTION)
 *  an EXCEPTION message: its TApplicationException's type and message, as read by the client,
 *             are the failure afterCall sees
 * </pre>
 *
 * <p>One call at a time per connection, as a generated client (sync, or libthrift's {@code
 * TAsyncClient}) makes them; the call may start and end on different threads. Not part of the API.
 */
public final class InterceptedConnection {
  private final ClientInterception chain;
  private final SocketAddress endpoint;
  private final HeaderTransport headers;
  private final boolean argumentHeaders;
  private volatile Call current;
  private volatile Throwable lastRefusal;

  /**
   * @param chain the interceptors
   * @param endpoint the connection's endpoint, for the contexts
   */
  public InterceptedConnection(ClientInterception chain, SocketAddress endpoint) {
    this(chain, endpoint, null);
  }

  /**
   * @param chain the interceptors
   * @param endpoint the connection's endpoint, for the contexts
   * @param headers the connection's transport when it carries headers: the request headers the
   *     interceptors set go to it, and the reply's come from it; {@code null} for none
   */
  public InterceptedConnection(
      ClientInterception chain, SocketAddress endpoint, HeaderTransport headers) {
    this(chain, endpoint, headers, false);
  }

  /**
   * @param chain the interceptors
   * @param endpoint the connection's endpoint, for the contexts
   * @param headers the connection's transport when it carries headers: the request headers the
   *     interceptors set go to it, and the reply's come from it; {@code null} for none
   * @param argumentHeaders whether the request headers the interceptors set also go in field 8888
   *     of the arguments ({@code ClientOptions.argumentHeaders})
   */
  public InterceptedConnection(
      ClientInterception chain,
      SocketAddress endpoint,
      HeaderTransport headers,
      boolean argumentHeaders) {
    this.chain = chain;
    this.endpoint = endpoint;
    this.headers = headers;
    this.argumentHeaders = argumentHeaders;
  }

  /**
   * Checks that protocols of {@code factory} can be decorated: generated code picks its encoding by
   * {@code getScheme()}, and {@code TTupleProtocol}'s tuple scheme casts the protocol itself, so no
   * decorator can stand in for it (libthrift's {@code TMultiplexedProtocol} has the same limit).
   *
   * @throws IllegalArgumentException if it cannot
   */
  public static void checkDecoratable(TProtocolFactory factory) {
    try {
      TProtocol sample = factory.getProtocol(new TMemoryBuffer(16));
      if (sample.getScheme() != StandardScheme.class) {
        throw new IllegalArgumentException(
            "interceptors: not supported with "
                + sample.getClass().getName()
                + " (expected: a protocol with the standard scheme, as TBinaryProtocol,"
                + " TCompactProtocol and TJSONProtocol; its generated code cannot run through"
                + " the protocol decorator that runs the interceptors)");
      }
    } catch (TTransportException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code protocol}, running the interceptors. */
  public TProtocol wrap(TProtocol protocol) {
    return new Intercepting(protocol);
  }

  /** A factory whose protocols run the interceptors, for a client that makes its own. */
  public TProtocolFactory wrap(TProtocolFactory factory) {
    return transport -> new Intercepting(factory.getProtocol(transport));
  }

  /**
   * The client is done (its pool call returned or threw {@code failure}, {@code null} for none):
   * ends a call still open, a oneway message as written, anything else with its failure.
   */
  public void settle(Throwable failure) {
    Call call = current;
    if (call == null || call.hasEnded()) {
      return;
    }
    current = null;
    if (failure != null) {
      call.endWithResult(failure);
    } else if (call.isOneway()) {
      call.end(CallOutcome.ONEWAY, null);
    } else {
      call.end(
          CallOutcome.TRANSPORT_FAILURE,
          new TTransportException(
              "the client returned without reading the reply to "
                  + describe(call)
                  + " from "
                  + ClientErrors.peer(endpoint)));
    }
  }

  /** Whether {@code failure} is an interceptor's refusal of this connection's last call. */
  public boolean refused(Throwable failure) {
    return failure != null && failure == lastRefusal;
  }

  private static String describe(Call call) {
    return call.context.methodName() + " (seqid " + call.context.seqId() + ")";
  }

  private void begin(TMessage message) throws TException {
    Call previous = current;
    if (previous != null && !previous.hasEnded()) {
      // The client went on to the next message: a oneway one was sent; a call whose reply was
      // not read through here failed on the way, and its caller chose to carry on.
      settle(null);
    }
    try {
      current = chain.begin(message.name, message.seqid, message.type, endpoint);
      if (headers != null) {
        headers.nextRequestHeaders(current.context.requestHeaders());
      }
    } catch (TException refusal) {
      current = null;
      lastRefusal = refusal;
      throw refusal;
    }
  }

  private void fail(TException failure) {
    Call call = current;
    if (call != null) {
      current = null;
      call.endWithFailure(failure);
    }
  }

  private final class Intercepting extends TProtocolDecorator {
    private boolean firstField; // the next readFieldBegin is the result struct's first field
    private ReplyKind kind;
    // An EXCEPTION message's TApplicationException, as the generated client reads it by: the
    // struct depth (1 in the exception's fields) and the field last begun there.
    private int readDepth;
    private TField exceptionField;
    private String exceptionMessage;
    private int exceptionType;
    private int writeDepth; // structs open in the message being written; 1 in its arguments

    Intercepting(TProtocol protocol) {
      super(protocol);
    }

    @Override
    public void writeMessageBegin(TMessage message) throws TException {
      begin(message);
      writeDepth = 0;
      super.writeMessageBegin(message);
    }

    @Override
    public void writeStructBegin(TStruct struct) throws TException {
      writeDepth++;
      super.writeStructBegin(struct);
    }

    @Override
    public void writeStructEnd() throws TException {
      writeDepth--;
      super.writeStructEnd();
    }

    @Override
    public void writeFieldStop() throws TException {
      if (argumentHeaders && writeDepth == 1) {
        Call call = current;
        Map<String, String> own = call == null ? Map.of() : call.context.requestHeaders();
        if (!own.isEmpty()) {
          ArgumentHeaders.writeField(this, own);
        }
      }
      super.writeFieldStop();
    }

    @Override
    public TMessage readMessageBegin() throws TException {
      TMessage message;
      try {
        message = super.readMessageBegin();
      } catch (TException e) {
        fail(e); // timeouts and closed connections surface here, waiting for the reply
        throw e;
      }
      firstField = message.type != TMessageType.EXCEPTION;
      kind = firstField ? null : ReplyKind.APPLICATION_EXCEPTION;
      readDepth = 0;
      exceptionField = null;
      exceptionMessage = null;
      exceptionType = TApplicationException.UNKNOWN;
      return message;
    }

    @Override
    public TStruct readStructBegin() throws TException {
      readDepth++;
      return super.readStructBegin();
    }

    @Override
    public void readStructEnd() throws TException {
      readDepth--;
      super.readStructEnd();
    }

    @Override
    public TField readFieldBegin() throws TException {
      TField field = super.readFieldBegin();
      if (firstField) {
        firstField = false;
        kind = ReplyKind.ofResultField(field);
      } else if (kind == ReplyKind.APPLICATION_EXCEPTION && readDepth == 1) {
        exceptionField = field;
      }
      return field;
    }

    @Override
    public String readString() throws TException {
      String value = super.readString();
      if (exceptionFieldIs(1, TType.STRING)) {
        exceptionMessage = value; // TApplicationException's field 1: its message
      }
      return value;
    }

    @Override
    public int readI32() throws TException {
      int value = super.readI32();
      if (exceptionFieldIs(2, TType.I32)) {
        exceptionType = value; // TApplicationException's field 2: its type
      }
      return value;
    }

    /** Whether the value being read is field {@code id} of the reply's TApplicationException. */
    private boolean exceptionFieldIs(int id, byte type) {
      TField field = exceptionField;
      if (kind != ReplyKind.APPLICATION_EXCEPTION || readDepth != 1 || field == null) {
        return false;
      }
      exceptionField = null; // one value per field header: not an element of a skipped list
      return field.id == id && field.type == type;
    }

    @Override
    public void readMessageEnd() throws TException {
      super.readMessageEnd();
      Call call = current;
      if (call == null || kind == null) {
        return;
      }
      current = null;
      if (headers != null) {
        ContextAccess.responseHeaders(call.context, headers.lastReplyHeaders());
      }
      if (kind == ReplyKind.APPLICATION_EXCEPTION) {
        // The generated client throws the one it read, equal to this: same type, code, message.
        call.end(
            CallOutcome.APPLICATION_EXCEPTION,
            new TApplicationException(exceptionType, exceptionMessage));
      } else {
        call.end(
            kind == ReplyKind.RESULT ? CallOutcome.SUCCESS : CallOutcome.DECLARED_EXCEPTION, null);
      }
      kind = null;
      exceptionField = null;
    }
  }
}
