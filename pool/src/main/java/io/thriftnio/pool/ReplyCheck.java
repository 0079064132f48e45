package io.thriftnio.pool;

import io.thriftnio.core.NotRun;
import io.thriftnio.core.internal.MessageReader;
import io.thriftnio.core.util.internal.FrameInputTransport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;

/**
 * Whether a reply answers the request it was matched to: same method name and sequence id. A
 * mismatch means the connection's request/response order is broken, so only the pool, which knows
 * the connection, can act on it (by closing it).
 */
final class ReplyCheck {
  private final TProtocolFactory protocolFactory;

  ReplyCheck(TProtocolFactory protocolFactory) {
    this.protocolFactory = protocolFactory;
  }

  /** Reads a message's header in place: no copy of the (possibly large) message. */
  TMessage header(ByteBuffer message) throws TException {
    // Only a message header is read, in place; the channel has enforced its frame limit.
    return MessageReader.header(message, protocolFactory, MessageReader.BOUNDED_BY_FRAME);
  }

  /**
   * The "not run" refusal ({@link NotRun}) that {@code response} carries, or {@code null}: read
   * whole only when the reply is an exception; an unreadable reply is none (the caller's decoding
   * tells).
   */
  TApplicationException notRun(ByteBuffer response) {
    try {
      if (header(response).type != TMessageType.EXCEPTION) {
        return null;
      }
      TProtocol in =
          protocolFactory.getProtocol(
              FrameInputTransport.of(MessageReader.BOUNDED_BY_FRAME, response.duplicate()));
      in.readMessageBegin();
      TApplicationException e = TApplicationException.readFrom(in);
      return NotRun.isNotRun(e) ? e : null;
    } catch (TException | RuntimeException unreadable) {
      return null;
    }
  }

  /** The failure for a reply that does not answer {@code sent}, or {@code null} if it does. */
  TException mismatch(TMessage sent, ByteBuffer response, InetSocketAddress endpoint) {
    if (sent.type == TMessageType.ONEWAY) {
      return null;
    }
    TMessage got;
    try {
      got = header(response);
    } catch (TException | RuntimeException e) {
      return new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "unreadable reply header from " + Names.endpoint(endpoint) + " to " + sent.name,
          e);
    }
    if (got.seqid != sent.seqid || !got.name.equals(sent.name)) {
      return new TApplicationException(
          TApplicationException.BAD_SEQUENCE_ID,
          sent.name
              + " failed: out of sequence response from "
              + Names.endpoint(endpoint)
              + ": expected "
              + sent.name
              + "#"
              + sent.seqid
              + " but got "
              + got.name
              + "#"
              + got.seqid);
    }
    return null;
  }
}
