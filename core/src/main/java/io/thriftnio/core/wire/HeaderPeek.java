package io.thriftnio.core.wire;

import io.thriftnio.core.util.internal.FrameInputTransport;
import java.nio.ByteBuffer;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;

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
      // Its message size limit is the bytes received, not the declared length: a name length read
      // from foreign bytes ("GET / HT..." reads as 790 MB) fails before the protocol allocates a
      // string for it.
      byte[] received = new byte[available];
      bytes.getBytes(offset, received, 0, available);
      FrameInputTransport transport =
          FrameInputTransport.of(
              new TConfiguration(available, available, 64), ByteBuffer.wrap(received));
      TMessage header = protocolFactory.getProtocol(transport).readMessageBegin();
      return header.name == null ? null : header;
    } catch (TException | RuntimeException notAHeader) {
      return null; // cut short or not Thrift: there is nobody to answer, the connection closes
    }
  }
}
