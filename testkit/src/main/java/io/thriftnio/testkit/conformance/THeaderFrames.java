package io.thriftnio.testkit.conformance;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * THeader frames written by hand from Apache Thrift's {@code doc/specs/HeaderFormat.md}, for tests:
 * a builder for requests (good and broken), and a reader for replies. Independent of the classes
 * under test: its own varints, zlib and padding. (core's wire tests hold the same helper: core
 * cannot depend on this module.)
 */
public final class THeaderFrames {

  private int protocolId;
  private int flags;
  private int seqId = 1;
  private final List<Integer> transforms = new ArrayList<>();
  private final Map<String, String> headers = new LinkedHashMap<>();
  private byte[] rawSection;
  private Integer headerSizeWords;

  /** A binary request with sequence id 1, no transforms, no headers. */
  public static THeaderFrames request() {
    return new THeaderFrames();
  }

  public THeaderFrames protocol(int id) {
    this.protocolId = id;
    return this;
  }

  public THeaderFrames flags(int flags) {
    this.flags = flags;
    return this;
  }

  public THeaderFrames seqId(int seqId) {
    this.seqId = seqId;
    return this;
  }

  public THeaderFrames transform(int id) {
    transforms.add(id);
    return this;
  }

  public THeaderFrames header(String key, String value) {
    headers.put(key, value);
    return this;
  }

  /** The header section as given (padded to 4 bytes here), instead of one built. */
  public THeaderFrames rawSection(byte[] section) {
    this.rawSection = section;
    return this;
  }

  /** The HEADER SIZE field as given, instead of the section's own. */
  public THeaderFrames headerSizeWords(int words) {
    this.headerSizeWords = words;
    return this;
  }

  /** The whole frame, length prefix included, around {@code message}. */
  public byte[] frame(byte[] message) {
    byte[] payload = message;
    for (int id : transforms) {
      if (id == 1) {
        payload = zlib(payload);
      }
    }
    ByteArrayOutputStream section = new ByteArrayOutputStream();
    if (rawSection != null) {
      section.writeBytes(rawSection);
    } else {
      varint(section, protocolId);
      varint(section, transforms.size());
      transforms.forEach(id -> varint(section, id));
      if (!headers.isEmpty()) {
        varint(section, 1);
        varint(section, headers.size());
        headers.forEach(
            (k, v) -> {
              string(section, k);
              string(section, v);
            });
      }
    }
    while (section.size() % 4 != 0) {
      section.write(0);
    }
    int words = headerSizeWords != null ? headerSizeWords : section.size() / 4;
    ByteBuffer frame = ByteBuffer.allocate(4 + 10 + section.size() + payload.length);
    frame
        .putInt(10 + section.size() + payload.length)
        .putShort((short) 0x0FFF)
        .putShort((short) flags)
        .putInt(seqId)
        .putShort((short) words)
        .put(section.toByteArray())
        .put(payload);
    return frame.array();
  }

  public static void varint(ByteArrayOutputStream out, int value) {
    while ((value & ~0x7f) != 0) {
      out.write((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write(value);
  }

  private static void string(ByteArrayOutputStream out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    varint(out, b.length);
    out.writeBytes(b);
  }

  public static byte[] zlib(byte[] data) {
    Deflater d = new Deflater();
    d.setInput(data);
    d.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[4096];
    while (!d.finished()) {
      out.write(chunk, 0, d.deflate(chunk));
    }
    d.end();
    return out.toByteArray();
  }

  /** A reply frame read back: its fixed fields, its section's protocol and transforms, its body. */
  public static final class Reply {
    public int length;
    public int flags;
    public int seqId;
    public int protocolId;
    public List<Integer> transforms = new ArrayList<>();
    public int sectionBytes;
    public Map<String, String> headers = new LinkedHashMap<>();
    public byte[] message;
  }

  /** Reads a whole reply frame (length prefix included), inflating a zlib body. */
  public static Reply read(byte[] frame) throws Exception {
    ByteBuffer in = ByteBuffer.wrap(frame);
    Reply r = new Reply();
    r.length = in.getInt();
    if (r.length != frame.length - 4) {
      throw new AssertionError("length " + r.length + " for " + (frame.length - 4) + " bytes");
    }
    if (in.getShort() != 0x0FFF) {
      throw new AssertionError("no THeader magic");
    }
    r.flags = in.getShort() & 0xffff;
    r.seqId = in.getInt();
    r.sectionBytes = (in.getShort() & 0xffff) * 4;
    int end = in.position() + r.sectionBytes;
    r.protocolId = readVarint(in);
    int n = readVarint(in);
    for (int i = 0; i < n; i++) {
      r.transforms.add(readVarint(in));
    }
    while (in.position() < end) {
      int id = readVarint(in);
      if (id == 1) { // INFO_KEYVALUE
        int count = readVarint(in);
        for (int i = 0; i < count; i++) {
          r.headers.put(readString(in), readString(in));
        }
      } else if (id != 0) {
        throw new AssertionError("info id " + id + " in the reply (expected: 1, or 0 padding)");
      }
    }
    byte[] body = new byte[in.remaining()];
    in.get(body);
    for (int id : r.transforms) {
      Inflater inflater = new Inflater();
      inflater.setInput(body);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] chunk = new byte[4096];
      while (!inflater.finished()) {
        out.write(chunk, 0, inflater.inflate(chunk));
      }
      inflater.end();
      body = out.toByteArray();
    }
    r.message = body;
    return r;
  }

  private static String readString(ByteBuffer in) {
    byte[] b = new byte[readVarint(in)];
    in.get(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  private static int readVarint(ByteBuffer in) {
    int value = 0;
    for (int shift = 0; ; shift += 7) {
      int b = in.get();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
  }
}
