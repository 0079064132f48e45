package io.thriftnio.core;

import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.MessageHeaders;
import io.thriftnio.core.util.internal.ProtocolBytes;
import io.thriftnio.core.util.internal.ReplyChecks;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolDecorator;
import org.apache.thrift.protocol.TProtocolException;

/**
 * The protocol decorators that let {@link AsyncClients} run a generated client, whose every call
 * has seqid 1 on a fresh client, over a shared pipelined channel: the wire carries the channel's
 * own sequence, and the reply's id is checked against it and handed back as the client wrote it.
 */
final class SeqidProtocols {
  private SeqidProtocols() {}

  /**
   * Writes the caller's next sequence id in place of the generated client's (always 1, as each call
   * has a fresh client), and remembers both for {@link SequenceCheckingInput}.
   */
  static final class SequencingOutput extends TProtocolDecorator {
    private final AtomicInteger sequence;
    String method = "";
    int clientSeqid;
    int wireSeqid;

    SequencingOutput(TProtocol protocol, AtomicInteger sequence) {
      super(protocol);
      this.sequence = sequence;
    }

    @Override
    public void writeMessageBegin(TMessage message) throws TException {
      method = message.name;
      clientSeqid = message.seqid;
      wireSeqid = sequence.incrementAndGet();
      super.writeMessageBegin(new TMessage(message.name, message.type, wireSeqid));
    }
  }

  /**
   * Fails a reply whose sequence id is not its request's, and hands the generated client the id it
   * wrote, so that its own check passes.
   */
  static final class SequenceCheckingInput extends TProtocolDecorator {
    private final String protocolName;
    private final SequencingOutput sent;
    private final ThriftChannel channel;
    private final FrameInputTransport input;
    private final boolean binary;
    private final boolean inPlace; // stock binary or compact: the header can be checked in place

    SequenceCheckingInput(
        TProtocol protocol,
        SequencingOutput sent,
        ThriftChannel channel,
        FrameInputTransport input) {
      super(protocol);
      this.sent = sent;
      this.channel = channel;
      this.input = input;
      this.binary = protocol.getClass() == TBinaryProtocol.class;
      this.inPlace = binary || protocol.getClass() == TCompactProtocol.class;
      this.protocolName = ProtocolBytes.protocolName(protocol);
    }

    /**
     * libthrift's "Expected protocol id ffffff82 but got ffffff80" restated when the reply is in
     * another protocol than this client's: both named, the same type kept.
     */
    private TProtocolException inOtherProtocol(TProtocolException e, int start) {
      ByteBuffer reply = input.unread();
      byte[] first = new byte[Math.max(0, Math.min(4, reply.limit() - start))];
      reply.get(start, first);
      String mismatch =
          ProtocolBytes.replyInOtherProtocol(
              channel.remoteAddress(), first, first.length, protocolName);
      return mismatch == null ? e : new TProtocolException(e.getType(), mismatch, e);
    }

    @Override
    public TMessage readMessageBegin() throws TException {
      if (inPlace) {
        // The expected reply (the name sent, the id sent): read past its header without decoding
        // the name into a String, which was the largest single cost of a small reply's decode.
        long header =
            MessageHeaders.expectedHeader(input.unread(), binary, sent.method, sent.wireSeqid);
        if (header >= 0) {
          checkType((byte) header);
          input.consumeBuffer((int) (header >>> 8));
          return new TMessage(sent.method, (byte) header, sent.clientSeqid);
        }
      }
      TMessage got;
      int start = input.unread().position();
      try {
        got = super.readMessageBegin();
      } catch (TProtocolException e) {
        throw inOtherProtocol(e, start);
      }
      if (got.seqid != sent.wireSeqid) {
        throw ReplyChecks.outOfSequence(sent.method, channel.remoteAddress(), sent.wireSeqid, got);
      }
      TApplicationException mismatch =
          ReplyChecks.mismatch(got, sent.method, channel.remoteAddress());
      if (mismatch != null) {
        throw mismatch;
      }
      return new TMessage(got.name, got.type, sent.clientSeqid);
    }

    /** A reply is a REPLY or an EXCEPTION; a generated client would read any other as a result. */
    private void checkType(byte type) throws TApplicationException {
      TApplicationException mismatch =
          ReplyChecks.mismatch(
              new TMessage(sent.method, type, sent.wireSeqid),
              sent.method,
              channel.remoteAddress());
      if (mismatch != null) {
        throw mismatch;
      }
    }
  }

  /**
   * What a reply's decoding threw, restated to name the call and the peer when it is libthrift's
   * bare protocol or transport error (a header that is no message, a size the frame cannot hold):
   * the same type and type code, the original as the cause. Anything else (a declared exception, a
   * {@code TApplicationException}, a failure that names the peer already) is returned as it is.
   */
  static Throwable unreadableReply(Throwable t, String method, SocketAddress peer) {
    return ReplyChecks.unreadable(t, method, peer);
  }
}
