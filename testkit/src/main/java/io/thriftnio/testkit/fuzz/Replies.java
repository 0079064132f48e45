package io.thriftnio.testkit.fuzz;

import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/** Checks what a server sent back to a fuzzing client: only well-formed replies. */
public final class Replies {

  private static final TConfiguration CONFIG = new TConfiguration();

  private static final Map<String, Supplier<TBase<?, ?>>> RESULTS =
      Map.of(
          "echo", BenchService.echo_result::new,
          "get_last_sale", BenchService.get_last_sale_result::new,
          "db_work", BenchService.db_work_result::new,
          "get_nested", BenchService.get_nested_result::new,
          "sleep", BenchService.sleep_result::new,
          "fail", BenchService.fail_result::new,
          "fired", BenchService.fired_result::new);

  private Replies() {}

  /**
   * Checks that {@code received} is a sequence of frames, each a {@code REPLY} to a two-way {@code
   * BenchService} method whose result decodes, or an {@code EXCEPTION} carrying a {@link
   * TApplicationException}. An incomplete last frame is tolerated: the server may reset the
   * connection (it closes with the client's unread bytes in its buffer), and a reset can drop bytes
   * in flight.
   *
   * @param received the bytes read until the server closed
   * @param protocol the server's protocol
   * @param maxFrameSize the server's limit, which responses also obey
   * @return the number of complete replies
   * @throws AssertionError describing the first malformed reply
   */
  public static int check(byte[] received, TProtocolFactory protocol, int maxFrameSize) {
    int at = 0;
    int replies = 0;
    while (received.length - at >= Framing.HEADER_SIZE) {
      int length = Framing.decodeLength(received, at);
      if (length <= 0 || length > maxFrameSize) {
        // A request that looked unframed is answered unframed, the server's hint, then closed.
        if (unframedRefusal(ByteBuffer.wrap(received, at, received.length - at).slice())) {
          return replies + 1;
        }
        throw new AssertionError(
            "reply " + replies + " has length " + length + " (limit " + maxFrameSize + ")");
      }
      if (received.length - at - Framing.HEADER_SIZE < length) {
        break;
      }
      ByteBuffer payload = ByteBuffer.wrap(received, at + Framing.HEADER_SIZE, length).slice();
      try {
        checkOne(payload, protocol);
      } catch (TException | RuntimeException e) {
        // A request in another protocol is refused in that protocol, naming both.
        if (!refusalInAnyProtocol(payload.duplicate())) {
          throw new AssertionError("reply " + replies + " does not decode: " + e, e);
        }
      }
      at += Framing.HEADER_SIZE + length;
      replies++;
    }
    return replies;
  }

  /**
   * The sequence id of a reply, or {@code null} if its header does not decode.
   *
   * @param payload one reply frame's payload
   * @param protocol the server's protocol
   */
  public static Integer seqidOf(byte[] payload, TProtocolFactory protocol) {
    try {
      return protocol
          .getProtocol(FrameInputTransport.of(CONFIG, ByteBuffer.wrap(payload)))
          .readMessageBegin()
          .seqid;
    } catch (TException | RuntimeException e) {
      return null;
    }
  }

  private static final TProtocolFactory[] PROTOCOLS = {
    new TBinaryProtocol.Factory(), new TCompactProtocol.Factory(), new TJSONProtocol.Factory()
  };

  /** Whether {@code bytes} begin with an unframed {@code EXCEPTION} in one of the protocols. */
  private static boolean unframedRefusal(ByteBuffer bytes) {
    return refusalInAnyProtocol(bytes);
  }

  /** Whether {@code payload} is an {@code EXCEPTION} carrying a refusal, in any protocol. */
  private static boolean refusalInAnyProtocol(ByteBuffer payload) {
    for (TProtocolFactory any : PROTOCOLS) {
      try {
        TProtocol p = any.getProtocol(FrameInputTransport.of(CONFIG, payload.duplicate()));
        TMessage msg = p.readMessageBegin();
        if (msg.type == TMessageType.EXCEPTION) {
          TApplicationException refused = TApplicationException.readFrom(p);
          if (refused.getType() == TApplicationException.PROTOCOL_ERROR) {
            return true;
          }
        }
      } catch (TException | RuntimeException notThisOne) {
        // Not a refusal in this protocol: try the next.
      }
    }
    return false;
  }

  private static void checkOne(ByteBuffer payload, TProtocolFactory protocol) throws TException {
    TProtocol p = protocol.getProtocol(FrameInputTransport.of(CONFIG, payload));
    TMessage msg = p.readMessageBegin();
    if (msg.type == TMessageType.EXCEPTION) {
      TApplicationException.readFrom(p);
    } else if (msg.type == TMessageType.REPLY) {
      Supplier<TBase<?, ?>> result = RESULTS.get(msg.name);
      if (result == null) {
        throw new AssertionError("a REPLY for " + msg.name + ", not a two-way method");
      }
      result.get().read(p);
    } else {
      throw new AssertionError("message type " + msg.type + " in a reply (" + msg.name + ")");
    }
    p.readMessageEnd();
  }
}
