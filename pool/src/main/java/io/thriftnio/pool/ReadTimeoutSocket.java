package io.thriftnio.pool;

import io.thriftnio.core.Framing;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The stock factories' {@code TSocket}, whose read timeout says what it waited for. A plain {@code
 * TSocket} reports {@code java.net.SocketTimeoutException: Read timed out}: no peer, no timeout, no
 * method. This one reports {@code no response to echo from host/10.0.0.7:9090 within readTimeout
 * 5000 ms; transport closed}, the text of this library's own transports, still a {@code
 * TTransportException} of type {@code TIMED_OUT} caused by the socket's exception; and it closes
 * itself, so that a late reply is never read by a next call.
 *
 * <p>The method comes from the header of the request last written, of which the first {@value
 * #HEAD_BYTES} bytes are kept (after the length prefix on a framed connection): a name that does
 * not fit, or a protocol whose header is not read in place (JSON), leaves the method out.
 */
final class ReadTimeoutSocket extends TSocket {

  /** Enough for the header of any method name up to 240 bytes, whatever the write pattern. */
  static final int HEAD_BYTES = 256;

  private final InetSocketAddress peer;
  private final int readTimeoutMillis;
  private final int skip;
  private final byte[] head;
  private int headSize;
  private boolean flushed = true;

  /**
   * @param socket a connected socket, its {@code SO_TIMEOUT} set to {@code readTimeoutMillis}
   * @param peer the address connected to, as messages name it
   * @param framed whether each request starts with a 4-byte length prefix
   */
  ReadTimeoutSocket(Socket socket, InetSocketAddress peer, int readTimeoutMillis, boolean framed)
      throws TTransportException {
    super(socket);
    this.peer = peer;
    this.readTimeoutMillis = readTimeoutMillis;
    this.skip = framed ? Framing.HEADER_SIZE : 0;
    this.head = new byte[skip + HEAD_BYTES];
  }

  /**
   * Refuses a size a reply declares (a string's bytes, a container's least bytes) over the
   * configuration's {@code maxFrameSize}, the pool's, before the protocol allocates for it:
   * libthrift's own bound is its {@code maxMessageSize}, 100 MB by default.
   */
  @Override
  public void checkReadBytesAvailable(long numBytes) throws TTransportException {
    int limit = getConfiguration().getMaxFrameSize();
    if (numBytes > limit) {
      throw new TTransportException(
          TTransportException.MESSAGE_SIZE_LIMIT,
          "a size of "
              + numBytes
              + " bytes declared in a reply from "
              + peer
              + " exceeds maxFrameSize "
              + limit);
    }
    super.checkReadBytesAvailable(numBytes);
  }

  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    if (flushed) { // the first bytes of a new request
      flushed = false;
      headSize = 0;
    }
    int keep = Math.min(len, head.length - headSize);
    if (keep > 0) {
      System.arraycopy(buf, off, head, headSize, keep);
      headSize += keep;
    }
    super.write(buf, off, len);
  }

  @Override
  public void flush() throws TTransportException {
    flushed = true;
    super.flush();
  }

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    try {
      return super.read(buf, off, len);
    } catch (TTransportException e) {
      if (e.getType() != TTransportException.TIMED_OUT) {
        throw e;
      }
      close(); // a late reply would otherwise be read by the next call
      throw ClientErrors.readTimedOut(
          peer, readTimeoutMillis, method(), e.getCause() != null ? e.getCause() : e);
    }
  }

  /** The method of the request last written, or {@code null}. */
  String method() {
    return headSize > skip ? MessageHeaders.methodName(head, skip, headSize - skip) : null;
  }
}
