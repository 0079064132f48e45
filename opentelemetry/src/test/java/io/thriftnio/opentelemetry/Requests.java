package io.thriftnio.opentelemetry;

import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TMultiplexedProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.transport.TMemoryBuffer;

/**
 * One call of a generated client, for a {@code ProcessorInvoker}: the request payload it sends, and
 * its reply decoded by the same client (which checks the sequence id).
 */
final class Requests {

  /** Encodes a request the way a generated client would. */
  interface Send {
    void send(BenchService.Client client) throws TException;
  }

  /** Decodes a reply the way a generated client would. */
  interface Receive<R> {
    R receive(BenchService.Client client) throws TException;
  }

  private final TMemoryBuffer in;
  private final TMemoryBuffer out;
  private final BenchService.Client client;

  private Requests(String service) throws TException {
    this.in = new TMemoryBuffer(64);
    this.out = new TMemoryBuffer(64);
    TProtocol o = new TBinaryProtocol(out);
    this.client =
        new BenchService.Client(
            new TBinaryProtocol(in), service == null ? o : new TMultiplexedProtocol(o, service));
  }

  /** A plain binary client's call. */
  static Requests of(Send send) throws TException {
    return of(null, send);
  }

  /** The call of a client multiplexed as {@code service}; plain if {@code null}. */
  static Requests of(String service, Send send) throws TException {
    Requests r = new Requests(service);
    send.send(r.client);
    return r;
  }

  /** The request payload (no length prefix). */
  ByteBuffer payload() {
    return ByteBuffer.wrap(Arrays.copyOf(out.getArray(), out.length()));
  }

  /** Decodes the reply frame (length prefix included). */
  <R> R reply(ByteBuffer frame, Receive<R> receive) throws TException {
    byte[] bytes = new byte[frame.remaining() - 4];
    frame.duplicate().position(frame.position() + 4).get(bytes);
    in.write(bytes);
    return receive.receive(client);
  }

  /** A call of a method no service has, with no arguments. */
  static ByteBuffer unknownMethod(String name) throws TException {
    TMemoryBuffer buffer = new TMemoryBuffer(64);
    TProtocol protocol = new TBinaryProtocol(buffer);
    protocol.writeMessageBegin(new TMessage(name, TMessageType.CALL, 1));
    protocol.writeStructBegin(new TStruct("args"));
    protocol.writeFieldStop();
    protocol.writeStructEnd();
    protocol.writeMessageEnd();
    return ByteBuffer.wrap(Arrays.copyOf(buffer.getArray(), buffer.length()));
  }
}
