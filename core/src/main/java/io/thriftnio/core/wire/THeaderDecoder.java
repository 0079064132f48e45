package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import java.net.SocketAddress;
import java.util.Map;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.TTransportException;

/**
 * A server connection's THeader requests ({@link WireKind#HEADER}): each frame's header read and
 * bounded, its payload handed out as a slice of the input, or inflated into an array of its own
 * when zlib is applied, with an envelope per request ({@link THeaderEnvelope}).
 *
 * <pre>
 * | LENGTH | 0F FF | FLAGS | SEQUENCE ID | HEADER SIZE/4 | header section | payload          |
 *   int32    magic   16 bit  int32         16 bit          HEADER SIZE x 4   to LENGTH's end
 * </pre>
 *
 * <p>Checked in this order, each before anything is allocated for what it declares: the length
 * against {@code maxFrameSize} as soon as its four bytes are here (as framed); the whole frame
 * buffered; its magic; the header section within the frame; the section's rules ({@link
 * THeaderSection}); the zlib stream inflated no further than {@code maxFrameSize} ({@link
 * THeaderZlib}).
 *
 * <p>A refusal once the protocol id is read and served is answered: the reply is a {@code
 * TApplicationException(PROTOCOL_ERROR)} to the header's sequence id, in the caller's protocol and
 * in THeader, then the connection closes (the spec wants an unknown transform answered with an
 * error; a closed connection alone would leave the caller guessing). Before that (a frame that lies
 * about its sizes, a protocol id not served) there is no way to write an answer the caller reads,
 * and the connection just closes.
 */
final class THeaderDecoder implements Decoder {

  /** THeader: a frame length, then {@code 0FFF}. */
  static final WireFormat KIND =
      new WireFormat("HEADER", WireKind.HEADER) {
        @Override
        public int detect(ByteSource in, int start, int available) {
          if ((in.getByte(start) & 0xff) >= 0x80) {
            return NO; // not a positive length
          }
          if (available < Framing.HEADER_SIZE) {
            return UNDECIDED;
          }
          if (in.getInt(start) < THeaderEnvelope.FIXED_SIZE) {
            return NO; // too short for THeader's fixed part: a small frame must not wait for more
          }
          if (available < Framing.HEADER_SIZE + 2) {
            return UNDECIDED;
          }
          return isMagic(in, start) ? YES : NO;
        }

        @Override
        public String looksLike() {
          return "a THeader frame";
        }

        @Override
        public Decoder newDecoder(WireSettings settings, SocketAddress peer) {
          return new THeaderDecoder(settings.maxFrameSize(), peer);
        }
      };

  /**
   * THeader inside a framed frame of its own, as Apache Thrift's test clients and servers stack it
   * when given {@code --protocol header --transport framed} (a {@code THeaderProtocol} over a
   * {@code TFramedTransport}): a length, then a THeader frame filling it exactly. Replies go back
   * the same way.
   */
  static final WireFormat FRAMED_KIND =
      new WireFormat("HEADER_IN_FRAMED", WireKind.HEADER) {
        @Override
        public int detect(ByteSource in, int start, int available) {
          if ((in.getByte(start) & 0xff) >= 0x80) {
            return NO; // not a positive length
          }
          if (available < Framing.HEADER_SIZE) {
            return UNDECIDED;
          }
          if (in.getInt(start) < Framing.HEADER_SIZE + THeaderEnvelope.FIXED_SIZE) {
            return NO; // too short to hold a THeader frame: a small frame must not wait for more
          }
          if (available < 2 * Framing.HEADER_SIZE) {
            return UNDECIDED;
          }
          if (in.getInt(start + Framing.HEADER_SIZE) != in.getInt(start) - Framing.HEADER_SIZE) {
            return NO;
          }
          if (available < 2 * Framing.HEADER_SIZE + 2) {
            return UNDECIDED;
          }
          return isMagic(in, start + Framing.HEADER_SIZE) ? YES : NO;
        }

        @Override
        public String looksLike() {
          return "a THeader frame inside a framed frame";
        }

        @Override
        public Decoder newDecoder(WireSettings settings, SocketAddress peer) {
          return new THeaderDecoder(settings.maxFrameSize(), peer, new RequestRefusals(peer), true);
        }
      };

  private final int maxFrameSize;
  private final SocketAddress peer;

  /** Whether each THeader frame comes inside a framed frame of its own ({@link #FRAMED_KIND}). */
  private final boolean inFramed;

  /** How a frame that breaks the rules is refused: by the server's or the client's side. */
  private final Refusals refusals;

  /** The envelope of the last message delivered. */
  private THeaderEnvelope last;

  /** A server connection's requests. */
  THeaderDecoder(int maxFrameSize, SocketAddress peer) {
    this(maxFrameSize, peer, new RequestRefusals(peer), false);
  }

  private THeaderDecoder(
      int maxFrameSize, SocketAddress peer, Refusals refusals, boolean inFramed) {
    this.maxFrameSize = maxFrameSize;
    this.peer = peer;
    this.refusals = refusals;
    this.inFramed = inFramed;
  }

  /**
   * A client connection's THeader replies, read with the same checks and limits; a reply that
   * breaks them is refused with {@code CORRUPTED_DATA} (a client has no one to answer).
   */
  static THeaderDecoder forReplies(int maxFrameSize, SocketAddress peer) {
    return new THeaderDecoder(maxFrameSize, peer, new ReplyRefusals(peer), false);
  }

  /** The envelope of the last message delivered: its info headers and sequence id. */
  THeaderEnvelope lastEnvelope() {
    return last;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    if (!inFramed) {
      return decode(in, start, available, 0, out);
    }
    // The outer frame first, as framed reads it; then the THeader frame that must fill it.
    int outer = bufferedLength(in, start, available, out);
    if (outer < 0) {
      return out.event();
    }
    int inner = outer < Framing.HEADER_SIZE ? -1 : in.getInt(start + Framing.HEADER_SIZE);
    if (inner != outer - Framing.HEADER_SIZE) {
      return out.refused(
          closed(
              "framed frame of "
                  + outer
                  + " bytes holds a THeader length of "
                  + inner
                  + " (expected: "
                  + (outer - Framing.HEADER_SIZE)
                  + ", the rest of the frame)"));
    }
    return decode(in, start + Framing.HEADER_SIZE, outer, Framing.HEADER_SIZE, out);
  }

  /**
   * Decodes the THeader frame at {@code start}, which comes after {@code outer} bytes of an outer
   * frame's length (0 or 4): what is consumed and where the payload lies count from those bytes.
   */
  private WireEvent decode(ByteSource in, int start, int available, int outer, Decoded out) {
    int length = bufferedLength(in, start, available, out);
    if (length < 0) {
      return out.event();
    }
    if (length < THeaderEnvelope.FIXED_SIZE) {
      return out.refused(
          closed(
              "frame of "
                  + length
                  + " bytes is shorter than THeader's fixed part ("
                  + THeaderEnvelope.FIXED_SIZE
                  + " bytes)"));
    }
    if (!isMagic(in, start)) {
      int magic = (in.getByte(start + 4) & 0xff) << 8 | (in.getByte(start + 5) & 0xff);
      return out.refused(
          closed(
              String.format(
                  "frame of %d bytes: bytes 4-5 are %04x (expected: 0fff)", length, magic)));
    }
    int at = start + Framing.HEADER_SIZE + 2;
    int flags = (in.getByte(at) & 0xff) << 8 | (in.getByte(at + 1) & 0xff);
    int seqId = in.getInt(at + 2);
    int sectionSize = ((in.getByte(at + 6) & 0xff) << 8 | (in.getByte(at + 7) & 0xff)) * 4;
    int room = length - THeaderEnvelope.FIXED_SIZE;
    if (sectionSize > room) {
      return out.refused(
          closed(
              "header section of "
                  + sectionSize
                  + " bytes (HEADER SIZE "
                  + sectionSize / 4
                  + ") exceeds the "
                  + room
                  + " bytes of its "
                  + length
                  + "-byte frame after the fixed part"));
    }
    int sectionStart = start + Framing.HEADER_SIZE + THeaderEnvelope.FIXED_SIZE;
    byte[] sectionBytes = new byte[sectionSize]; // bounded by the frame, which is all here
    in.getBytes(sectionStart, sectionBytes, 0, sectionSize);
    THeaderSection section;
    try {
      section = THeaderSection.read(sectionBytes);
    } catch (THeaderSection.Malformed e) {
      return out.refused(
          e.protocolId >= 0
              ? answered(e.getMessage(), flags, seqId, e.protocolId, outer > 0)
              : closed(e.getMessage()));
    }
    THeaderEnvelope envelope =
        new THeaderEnvelope(
            section.protocolId, flags, seqId, section.transforms, section.headers, outer > 0);
    int consumed = outer + Framing.HEADER_SIZE + length;
    int payloadOffset = outer + Framing.HEADER_SIZE + THeaderEnvelope.FIXED_SIZE + sectionSize;
    int payloadLength = consumed - payloadOffset;
    last = envelope;
    if (section.transforms.length == 0) {
      return out.message(consumed, payloadOffset, payloadLength, envelope);
    }
    byte[] payload = new byte[payloadLength];
    in.getBytes(start - outer + payloadOffset, payload, 0, payloadLength);
    try {
      for (int i = 0; i < section.transforms.length; i++) {
        payload = THeaderZlib.inflate(payload, maxFrameSize); // zlib is the one transform read
      }
    } catch (THeaderZlib.Refused e) {
      return out.refused(answered(e.getMessage(), flags, seqId, section.protocolId, outer > 0));
    }
    return out.message(consumed, payload, envelope);
  }

  /**
   * The length of the frame at {@code start} once all of it is buffered; else -1, with {@code out}
   * set to need more bytes, or to refuse a length outside 1 to {@code maxFrameSize} (checked as
   * soon as its four bytes are here, before waiting for what it declares).
   */
  private int bufferedLength(ByteSource in, int start, int available, Decoded out) {
    if (available < Framing.HEADER_SIZE) {
      out.needMore();
      return -1;
    }
    int length = in.getInt(start);
    if (length <= 0 || length > maxFrameSize) {
      out.refused(Refusal.frameSize(new FrameSizeException(length, maxFrameSize, peer), null));
      return -1;
    }
    if (available - Framing.HEADER_SIZE < length) {
      out.needMore();
      return -1;
    }
    return length;
  }

  private static boolean isMagic(ByteSource in, int start) {
    return (in.getByte(start + 4) & 0xff) == THeaderEnvelope.MAGIC >>> 8
        && (in.getByte(start + 5) & 0xff) == (THeaderEnvelope.MAGIC & 0xff);
  }

  private Refusal closed(String what) {
    return refusals.closed(what);
  }

  private Refusal answered(String what, int flags, int seqId, int protocolId, boolean inFramed) {
    return refusals.answered(what, flags, seqId, protocolId, inFramed);
  }

  /** How a frame that breaks the rules is refused, by the side reading it. */
  private interface Refusals {

    /** A refusal nobody can be answered for: the frame lies about its sizes. */
    Refusal closed(String what);

    /** A refusal once the header's protocol id and sequence id are read. */
    Refusal answered(String what, int flags, int seqId, int protocolId, boolean inFramed);
  }

  /** A server's: a request is answered where its caller can read the answer, then closed. */
  private record RequestRefusals(SocketAddress peer) implements Refusals {

    @Override
    public Refusal closed(String what) {
      return Refusal.of("THeader request from " + peer + " refused: " + what, null, null);
    }

    /**
     * A refusal answered with an error to {@code seqId}: the message's own name is unknown (its
     * bytes are not read), so the answer carries an empty one.
     */
    @Override
    public Refusal answered(String what, int flags, int seqId, int protocolId, boolean inFramed) {
      THeaderEnvelope envelope =
          new THeaderEnvelope(protocolId, flags, seqId, new int[0], Map.of(), inFramed);
      return Refusal.of(
          "THeader request from " + peer + " (seqid " + seqId + ") refused: " + what,
          new TMessage("", TMessageType.CALL, seqId),
          envelope);
    }
  }

  /** A client's: every refusal fails the waiting calls and closes. */
  private record ReplyRefusals(SocketAddress peer) implements Refusals {

    @Override
    public Refusal closed(String what) {
      return Refusal.ofClient(
          new TTransportException(
              TTransportException.CORRUPTED_DATA,
              "THeader reply from " + peer + " refused: " + what + "; connection closed"));
    }

    @Override
    public Refusal answered(String what, int flags, int seqId, int protocolId, boolean inFramed) {
      return closed(what + " (seqid " + seqId + ")");
    }
  }
}
