package io.thriftnio.grizzly.internal;

import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Buffer;

/**
 * Reads the Thrift message header at the start of a frame that will never be read whole (its
 * declared length is above the limit), so that the server can answer the caller's sequence id
 * before closing. Only the bytes already received are read: waiting for more would let a hostile
 * peer hold the connection open. Not part of the API.
 */
public final class HeaderPeek {

  private HeaderPeek() {}

  /**
   * Tries to read a message header.
   *
   * @param buffer the bytes received; neither its position nor its content is changed
   * @param offset absolute index of the payload's first byte
   * @param available payload bytes received from {@code offset}
   * @param protocolFactory the protocol the requests use
   * @return the header, or {@code null} if those bytes do not hold a whole, readable header
   */
  public static TMessage read(
      Buffer buffer, int offset, int available, TProtocolFactory protocolFactory) {
    if (available <= 0) {
      return null;
    }
    try {
      TMessage header =
          protocolFactory
              .getProtocol(new PeekTransport(buffer, offset, available))
              .readMessageBegin();
      return header.name == null ? null : header;
    } catch (TException | RuntimeException notAHeader) {
      return null; // cut short or not Thrift: there is nobody to answer, the connection closes
    }
  }

  /**
   * A read-only transport over the bytes received so far. Its message size limit is those bytes,
   * not the declared length, so a string length read from foreign bytes ("GET / HT..." reads as a
   * 790 MB name) fails before the protocol allocates anything for it.
   */
  private static final class PeekTransport extends TEndpointTransport {
    private final Buffer buffer;
    private final int end;
    private int index;

    PeekTransport(Buffer buffer, int offset, int available) throws TTransportException {
      super(new TConfiguration(available, available, 64));
      this.buffer = buffer;
      this.index = offset;
      this.end = offset + available;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void open() {}

    @Override
    public void close() {}

    @Override
    public int read(byte[] dst, int off, int len) throws TTransportException {
      if (len == 0) {
        return 0;
      }
      if (index >= end) {
        throw new TTransportException(
            TTransportException.END_OF_FILE, "the header goes past the bytes received");
      }
      int n = Math.min(len, end - index);
      for (int i = 0; i < n; i++) {
        dst[off + i] = buffer.get(index + i); // absolute: the position stays where it was
      }
      index += n;
      countConsumedMessageBytes(n);
      return n;
    }

    @Override
    public void write(byte[] src, int off, int len) throws TTransportException {
      throw new TTransportException(TTransportException.NOT_OPEN, "read-only");
    }
  }
}
