package io.thriftnio.it.bench;

import java.util.Arrays;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TLayeredTransport;

/**
 * The bench's own THeader client transport over any stream transport (a stock {@code TSocket}), for
 * the {@code tsocket-header} kind: libthrift's Java library has no THeader transport, and the load
 * generator must not measure this library's client to load a stock-client scenario.
 *
 * <pre>
 * request: | LENGTH | 0F FF | 00 00 | SEQUENCE ID | 00 01 | PROTOCOL ID | 00 | 00 00 | message |
 *            int32    magic   flags   int32         1 word  varint        no transforms, padding
 * </pre>
 *
 * <p>The protocol id comes from the message's first bytes (strict binary {@code 80 01}: 0, compact
 * {@code 82}: 2); no transform, no info header. A reply is read whole (its length checked against
 * {@code maxFrameSize} first), its header section skipped, and its message read from memory, as
 * {@code TFramedTransport} does. Replies with a transform are refused: this client asks for none.
 * Not thread-safe, like any {@code TTransport}.
 */
final class THeaderSocketTransport extends TLayeredTransport {

  /** Magic, flags, sequence id and header size: the part between the length and the section. */
  private static final int FIXED = 10;

  private final int maxFrameSize;
  private final byte[] head = new byte[4 + FIXED + 4];
  private final byte[] lengthBytes = new byte[4];
  private final TMemoryInputTransport reply;
  private byte[] out = new byte[1024];
  private int written;
  private int seqId;

  /**
   * @param inner an open or unopened stream transport
   * @param maxFrameSize the largest reply frame accepted, in bytes (its length field's value)
   */
  THeaderSocketTransport(TTransport inner, int maxFrameSize) throws TTransportException {
    super(inner);
    this.maxFrameSize = maxFrameSize;
    this.reply = new TMemoryInputTransport(new TConfiguration());
  }

  @Override
  public boolean isOpen() {
    return getInnerTransport().isOpen();
  }

  @Override
  public void open() throws TTransportException {
    getInnerTransport().open();
  }

  @Override
  public void close() {
    getInnerTransport().close();
  }

  @Override
  public void write(byte[] buf, int off, int len) {
    if (written + len > out.length) {
      out = Arrays.copyOf(out, Math.max(out.length * 2, written + len));
    }
    System.arraycopy(buf, off, out, written, len);
    written += len;
  }

  @Override
  public void flush() throws TTransportException {
    int length = FIXED + 4 + written;
    putInt(head, 0, length);
    head[4] = 0x0f;
    head[5] = (byte) 0xff;
    head[6] = 0; // flags
    head[7] = 0;
    putInt(head, 8, ++seqId);
    head[12] = 0; // HEADER SIZE: one 4-byte word
    head[13] = 1;
    head[14] = (byte) protocolId();
    head[15] = 0; // no transforms
    head[16] = 0; // padding
    head[17] = 0;
    TTransport inner = getInnerTransport();
    inner.write(head, 0, head.length);
    inner.write(out, 0, written);
    written = 0;
    inner.flush();
  }

  /** 0 for strict binary, 2 for compact: the ids THeader's spec gives them. */
  private int protocolId() throws TTransportException {
    if (written >= 2 && out[0] == (byte) 0x80 && out[1] == 0x01) {
      return 0;
    }
    if (written >= 1 && out[0] == (byte) 0x82) {
      return 2;
    }
    throw new TTransportException(
        "THeader carries strict binary or compact messages; this one starts with "
            + (written == 0 ? "nothing" : String.format("%02x", out[0] & 0xff)));
  }

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    if (reply.getBytesRemainingInBuffer() <= 0) {
      readFrame();
    }
    return reply.read(buf, off, len);
  }

  @Override
  public byte[] getBuffer() {
    return reply.getBuffer();
  }

  @Override
  public int getBufferPosition() {
    return reply.getBufferPosition();
  }

  @Override
  public int getBytesRemainingInBuffer() {
    return reply.getBytesRemainingInBuffer();
  }

  @Override
  public void consumeBuffer(int len) {
    reply.consumeBuffer(len);
  }

  private void readFrame() throws TTransportException {
    TTransport inner = getInnerTransport();
    inner.readAll(lengthBytes, 0, 4);
    int length = getInt(lengthBytes, 0);
    if (length < FIXED || length > maxFrameSize) {
      close();
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "THeader reply frame of "
              + length
              + " bytes (expected: "
              + FIXED
              + ".."
              + maxFrameSize
              + ")");
    }
    byte[] frame = new byte[length];
    inner.readAll(frame, 0, length);
    if (frame[0] != 0x0f || frame[1] != (byte) 0xff) {
      close();
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          String.format(
              "reply of %d bytes is not THeader: bytes 4-5 are %02x%02x (expected: 0fff)",
              length, frame[0] & 0xff, frame[1] & 0xff));
    }
    int section = ((frame[8] & 0xff) << 8 | (frame[9] & 0xff)) * 4;
    if (FIXED + section > length) {
      close();
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "THeader reply's header section of "
              + section
              + " bytes exceeds its "
              + length
              + "-byte frame");
    }
    // Protocol id (one byte for 0 or 2), then the transform count: a reply mirrors the request's
    // transforms, and this client sends none.
    if (section < 2 || frame[FIXED + 1] != 0) {
      close();
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "THeader reply with transforms or an empty header section (this client sends none)");
    }
    int start = FIXED + section;
    resetMessageSizeAndConsumedBytes(length - start);
    reply.reset(frame, start, length - start);
  }

  private static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  private static int getInt(byte[] b, int at) {
    return (b[at] & 0xff) << 24
        | (b[at + 1] & 0xff) << 16
        | (b[at + 2] & 0xff) << 8
        | b[at + 3] & 0xff;
  }
}
