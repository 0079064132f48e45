package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.WireEvent;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;

/**
 * The THeader client's steps, once, for the transports that send one request and read its reply
 * themselves (the sync socket transport and the stock async client's socket): the request's head
 * with the connection's next header sequence id, and the reply decoded, its failures told as the
 * {@code TTransportException} the call fails with. The pipelined channels take the same steps
 * through {@link ClientCodec} and their call table. One per connection; not thread-safe (the
 * connection's one writer and one reader in turn).
 *
 * <pre>
 * requestHead(message, headers, timeout)  refused (JSON, non-strict binary, a bad header): nothing
 *                                         sent, UNKNOWN; else | len | 0FFF | flags | seqid | ... |
 * reply(bytes)                            false: need more; true: decoded() holds the payload and
 *                                         replyHeaders() its headers; throws: the caller closes
 * </pre>
 */
final class THeaderSteps {

  private final ClientCodec codec;
  private final InetSocketAddress address;
  private int nextWireSeqId;

  /**
   * @param options {@link WireKind#HEADER}'s
   * @param address the server
   */
  THeaderSteps(ClientOptions options, InetSocketAddress address) {
    if (options.wireKind() != WireKind.HEADER) {
      throw new IllegalArgumentException(
          "options.wireKind: " + options.wireKind() + " (expected: HEADER)");
    }
    this.codec = ClientCodec.of(options, address, ClientErrors.peer(address));
    this.address = address;
  }

  /**
   * The head of the next request: checked first, so that a message or headers THeader cannot carry
   * fail the call with nothing written.
   *
   * @param message the request message, from position to limit; not moved
   * @param headers the request's info headers
   * @param timeoutMillis sent as {@code client_timeout}; 0 for none
   * @throws TTransportException {@code UNKNOWN} with the reason, if it cannot be sent
   */
  byte[] requestHead(ByteBuffer message, Map<String, String> headers, long timeoutMillis)
      throws TTransportException {
    try {
      TException refused = codec.refusal(message, headers);
      if (refused != null) {
        throw refused;
      }
      return codec.head(message, false, headers, nextWireSeqId++, timeoutMillis);
    } catch (TException e) {
      throw new TTransportException(TTransportException.UNKNOWN, e.getMessage(), e);
    }
  }

  /**
   * Decodes a reply from {@code start}.
   *
   * @return whether one is whole: then {@link #decoded()} holds its payload and what it consumed,
   *     and {@link #replyHeaders()} its info headers
   * @throws TTransportException if the reply is refused, or carries no message: the connection
   *     cannot be read on, and the caller closes it
   */
  boolean reply(ByteSource in, int start, int available) throws TTransportException {
    WireEvent event = codec.next(in, start, available);
    return event != WireEvent.NEED_MORE && delivered(event);
  }

  /**
   * The connection ended with {@code available} bytes not consumed: what the call fails with (the
   * reply cut short, or the peer's close).
   */
  TTransportException endOfStream(ByteSource in, int start, int available) {
    return codec.endOfStream(in, start, available) == WireEvent.REFUSED
        ? refused()
        : ClientErrors.closedByPeer(address);
  }

  private boolean delivered(WireEvent event) throws TTransportException {
    Decoded d = codec.decoded();
    if (event != WireEvent.MESSAGE) {
      throw refused();
    }
    byte[] array = d.payloadArray();
    if ((array != null ? array.length : d.payloadLength()) == 0) {
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "THeader reply from "
              + ClientErrors.peer(address)
              + " refused: it carries no message; connection closed");
    }
    return true;
  }

  private TTransportException refused() {
    Decoded d = codec.decoded();
    Exception e = d.refusal() == null ? null : d.refusal().exception();
    if (e instanceof FrameSizeException) {
      return ClientErrors.connectionFailed(address, e);
    }
    return e instanceof TTransportException
        ? (TTransportException) e
        : new TTransportException(
            TTransportException.CORRUPTED_DATA,
            "unreadable THeader reply from " + ClientErrors.peer(address) + "; connection closed");
  }

  /** The last reply's payload and what it consumed. */
  Decoded decoded() {
    return codec.decoded();
  }

  /** The last reply's info headers. */
  Map<String, String> replyHeaders() {
    return codec.replyHeaders();
  }
}
