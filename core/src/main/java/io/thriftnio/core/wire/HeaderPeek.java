package io.thriftnio.core.wire;

import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * Reads a Thrift message header from the first bytes of a frame that will never be decoded whole
 * (its declared length is above the limit), so that the server can answer the caller's sequence id
 * before closing.
 */
final class HeaderPeek {

  private HeaderPeek() {}

  /**
   * Tries to read a message header.
   *
   * @param bytes the buffered bytes; not modified
   * @param offset absolute index of the payload's first byte
   * @param available payload bytes buffered from {@code offset}
   * @param protocolFactory the protocol the requests use
   * @return the header, or {@code null} if the bytes do not hold a whole readable header
   */
  static TMessage read(
      ByteSource bytes, int offset, int available, TProtocolFactory protocolFactory) {
    if (available <= 0) {
      return null;
    }
    try {
      PeekTransport transport = new PeekTransport(bytes, offset, available);
      TMessage header = protocolFactory.getProtocol(transport).readMessageBegin();
      return header.name == null ? null : header;
    } catch (TException | RuntimeException notAHeader) {
      return null; // cut short or not Thrift: there is nobody to answer, the connection closes
    }
  }

  /**
   * A read-only transport over the bytes received so far. Its message size limit is those bytes,
   * not the declared length: a name length read from foreign bytes ("GET / HT..." reads as 790 MB)
   * must fail before the protocol allocates a string for it.
   */
  private static final class PeekTransport extends TEndpointTransport {
    private final ByteSource bytes;
    private int index;
    private final int end;

    PeekTransport(ByteSource bytes, int offset, int available) throws TTransportException {
      super(new TConfiguration(available, available, 64));
      this.bytes = bytes;
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
      bytes.getBytes(index, dst, off, n);
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
