package io.thriftnio.core.util.internal;

import java.net.SocketAddress;
import java.util.function.Supplier;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TMultiplexedProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolDecorator;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;

/**
 * What every client does with a reply's header and with a reply it cannot decode, in one wording: a
 * reply must name the method called and be a {@code REPLY} or an {@code EXCEPTION} (a generated
 * client checks neither, and reads any other message as the result), and libthrift's bare decode
 * errors ({@code Bad version in readMessageBegin}, {@code Message size exceeds limit}) are restated
 * to name the call and the peer.
 */
public final class ReplyChecks {
  private ReplyChecks() {}

  /**
   * The failure for a reply header {@code got} that does not answer a call of {@code method}, or
   * {@code null} if it does; an {@code EXCEPTION} is left to the generated client, which reads it.
   */
  public static TApplicationException mismatch(TMessage got, String method, SocketAddress peer) {
    if (got.type == TMessageType.EXCEPTION) {
      return null;
    }
    if (method != null && !answers(got.name, method)) {
      return new TApplicationException(
          TApplicationException.WRONG_METHOD_NAME,
          method
              + " failed: the reply from "
              + peer
              + " with seqid "
              + got.seqid
              + " names method "
              + got.name);
    }
    if (got.type != TMessageType.REPLY) {
      return new TApplicationException(
          TApplicationException.INVALID_MESSAGE_TYPE,
          (method == null ? "a call" : method)
              + " failed: the reply from "
              + peer
              + " has message type "
              + got.type
              + " (expected: 2 REPLY or 3 EXCEPTION)");
    }
    return null;
  }

  /**
   * Whether a reply named {@code replied} answers a call of {@code called}: the same name, or the
   * name without the service prefix a {@code TMultiplexedProtocol} adds ({@code bench:echo} is
   * answered as {@code echo} by a {@code TMultiplexedProcessor}).
   */
  static boolean answers(String replied, String called) {
    return replied.equals(called)
        || called.length() > replied.length()
            && called.endsWith(replied)
            && called.charAt(called.length() - replied.length() - 1)
                == TMultiplexedProtocol.SEPARATOR.charAt(0);
  }

  /** The failure for a reply whose sequence id is not the request's. */
  public static TApplicationException outOfSequence(
      String method, SocketAddress peer, int expected, TMessage got) {
    return new TApplicationException(
        TApplicationException.BAD_SEQUENCE_ID,
        method
            + " failed: out of sequence response from "
            + peer
            + ": expected seqid "
            + expected
            + ", got "
            + got.seqid
            + " from method "
            + got.name);
  }

  /**
   * What a reply's decoding threw, restated to name the call and the peer when it is a bare
   * protocol error, a size or corrupted-data transport error, or libthrift's own {@code
   * BAD_SEQUENCE_ID}: the same type and type code, the original as the cause. Anything else (a
   * declared exception, a failure that names the peer already, a closed or reset connection) is
   * returned as it is.
   */
  public static <T extends Throwable> Throwable unreadable(T t, String method, SocketAddress peer) {
    String text = String.valueOf(t.getMessage());
    String where = String.valueOf(peer);
    if (text.contains(where)) {
      return t;
    }
    String restated =
        (method == null ? "a call" : method)
            + " failed: unreadable reply from "
            + where
            + ": "
            + text;
    if (t instanceof TProtocolException p) {
      return new TProtocolException(p.getType(), restated, p);
    }
    if (t instanceof TTransportException e
        && (e.getType() == TTransportException.MESSAGE_SIZE_LIMIT
            || e.getType() == TTransportException.CORRUPTED_DATA)) {
      return new TTransportException(e.getType(), restated, e);
    }
    if (t instanceof TApplicationException a
        && a.getType() == TApplicationException.BAD_SEQUENCE_ID) {
      TApplicationException named =
          new TApplicationException(
              a.getType(),
              text.replace(
                  "out of sequence response:", "out of sequence response from " + where + ":"));
      named.initCause(a);
      return named;
    }
    return t;
  }

  /**
   * A protocol that checks each reply header it reads against the last call written through it (or,
   * with {@code expected}, the method the connection last sent): the method's name, the message
   * type and, when {@code checkSeqid}, the sequence id; the generated client over it sees only
   * replies that answer its call.
   */
  public static final class CheckingProtocol extends TProtocolDecorator {
    private final SocketAddress peer;
    private final Supplier<String> expected;
    private final boolean checkSeqid;
    private String method;
    private int seqid;

    /**
     * @param protocol the protocol to read and write through
     * @param peer the peer, as failures name it
     * @param expected the method the reply answers, or {@code null}: the last written through this
     *     protocol, whose sequence id is then checked too
     */
    public CheckingProtocol(TProtocol protocol, SocketAddress peer, Supplier<String> expected) {
      super(protocol);
      this.peer = peer;
      this.expected = expected;
      this.checkSeqid = expected == null;
    }

    /** The method of the call last written, or {@code null}. */
    public String method() {
      return expected != null ? expected.get() : method;
    }

    @Override
    public void writeMessageBegin(TMessage message) throws TException {
      method = message.name;
      seqid = message.seqid;
      super.writeMessageBegin(message);
    }

    @Override
    public TMessage readMessageBegin() throws TException {
      String call = method();
      TMessage got;
      try {
        got = super.readMessageBegin();
      } catch (TProtocolException | TTransportException e) {
        Throwable restated = unreadable(e, call, peer);
        throw restated instanceof TException t ? t : e;
      }
      if (checkSeqid && call != null && got.type != TMessageType.EXCEPTION && got.seqid != seqid) {
        throw outOfSequence(call, peer, seqid, got);
      }
      TApplicationException mismatch = mismatch(got, call, peer);
      if (mismatch != null) {
        throw mismatch;
      }
      return got;
    }
  }
}
