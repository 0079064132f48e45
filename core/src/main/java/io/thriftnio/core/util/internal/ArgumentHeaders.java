package io.thriftnio.core.util.internal;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMap;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TByteBuffer;
import org.apache.thrift.transport.TMemoryBuffer;

/**
 * Headers carried inside a request's arguments: a {@code map<string,string>} in field {@value
 * #FIELD_ID} of the arguments struct, where OpenTelemetry's Java agent (its {@code thrift-0.13}
 * instrumentation) and SkyWalking put the trace context of a Thrift call. Read with bounds, checked
 * before anything of the map is allocated; written by splicing the field in front of the arguments'
 * final stop byte. Strict binary and compact messages only. Not part of the API.
 */
public final class ArgumentHeaders {

  /** The field id: {@value}. */
  public static final short FIELD_ID = 8888;

  /** The most entries read: {@value}; a larger map is ignored whole. */
  public static final int MAX_ENTRIES = 100;

  /** The most bytes the field's map may take on the wire: {@value}; a larger one is ignored. */
  public static final int MAX_BYTES = 8 * 1024;

  private ArgumentHeaders() {}

  /**
   * The headers in field {@value #FIELD_ID} of the arguments of the call or oneway message in
   * {@code payload} (a message, no length prefix, from position to limit; its position is not
   * moved). Empty when there is no such field, when the message is not strict binary or compact, is
   * malformed, or when the map is larger than {@value #MAX_ENTRIES} entries or {@value #MAX_BYTES}
   * bytes: never an exception, the processor judges the message.
   */
  public static Map<String, String> read(ByteBuffer payload) {
    if (payload.remaining() < 2) {
      return Map.of();
    }
    TProtocolFactory factory = factoryOf(payload);
    if (factory == null) {
      return Map.of();
    }
    ByteBuffer view = payload.duplicate();
    try {
      TProtocol in = factory.getProtocol(new TByteBuffer(view));
      TMessage message = in.readMessageBegin();
      if (message.type != TMessageType.CALL && message.type != TMessageType.ONEWAY) {
        return Map.of();
      }
      in.readStructBegin();
      while (true) {
        TField field = in.readFieldBegin();
        if (field.type == TType.STOP) {
          return Map.of();
        }
        if (field.id == FIELD_ID && field.type == TType.MAP) {
          return readMap(factory, view);
        }
        in.skip(field.type); // libthrift's skip allocates nothing for strings
        in.readFieldEnd();
      }
    } catch (TException | RuntimeException | StackOverflowError malformed) {
      return Map.of();
    }
  }

  /** The map at {@code view}'s position, measured by skipping it before any of it is allocated. */
  private static Map<String, String> readMap(TProtocolFactory factory, ByteBuffer view)
      throws TException {
    int start = view.position();
    TProtocol measure = factory.getProtocol(new TByteBuffer(view));
    measure.skip(TType.MAP);
    int bytes = view.position() - start;
    if (bytes > MAX_BYTES) {
      return Map.of();
    }
    ByteBuffer map = view.duplicate();
    map.position(start).limit(start + bytes);
    TProtocol in = factory.getProtocol(new TByteBuffer(map));
    TMap header = in.readMapBegin();
    if (header.size > MAX_ENTRIES
        || (header.size > 0
            && (header.keyType != TType.STRING || header.valueType != TType.STRING))) {
      return Map.of();
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < header.size; i++) {
      String key = in.readString();
      headers.put(key, in.readString());
    }
    return headers;
  }

  /**
   * {@code request} (a call or oneway message, no length prefix, from position to limit) with
   * {@code headers} added in field {@value #FIELD_ID} of its arguments, or {@code request} itself
   * when there is nothing to add, or the message is not strict binary or compact, or does not end
   * with its arguments' stop byte.
   */
  public static ByteBuffer write(ByteBuffer request, Map<String, String> headers) {
    if (headers.isEmpty() || request.remaining() < 2) {
      return request;
    }
    TProtocolFactory factory = factoryOf(request);
    int last = request.limit() - 1;
    if (factory == null || request.get(last) != TType.STOP) {
      return request;
    }
    try {
      TMemoryBuffer out = new TMemoryBuffer(64);
      writeField(factory.getProtocol(out), headers);
      byte[] field = out.getArray();
      int length = out.length();
      ByteBuffer spliced = ByteBuffer.allocate(request.remaining() + length);
      ByteBuffer head = request.duplicate();
      head.limit(last);
      spliced.put(head).put(field, 0, length).put(TType.STOP).flip();
      return spliced;
    } catch (TException unwritable) {
      return request; // an unpaired surrogate in a header, say: the call goes without them
    }
  }

  /**
   * Writes {@code headers} as field {@value #FIELD_ID} with {@code protocol}, which is inside the
   * arguments struct, before its stop.
   */
  public static void writeField(TProtocol protocol, Map<String, String> headers) throws TException {
    protocol.writeFieldBegin(new TField("", TType.MAP, FIELD_ID));
    protocol.writeMapBegin(new TMap(TType.STRING, TType.STRING, headers.size()));
    for (Map.Entry<String, String> header : headers.entrySet()) {
      protocol.writeString(header.getKey());
      protocol.writeString(header.getValue());
    }
    protocol.writeMapEnd();
    protocol.writeFieldEnd();
  }

  /** The protocol of a strict binary or compact message, else {@code null}. */
  private static TProtocolFactory factoryOf(ByteBuffer message) {
    int first = message.get(message.position()) & 0xff;
    int second = message.get(message.position() + 1) & 0xff;
    if (first == 0x80 && second == 0x01) {
      return ProtocolBytes.protocolFactory(first);
    }
    return first == 0x82 ? ProtocolBytes.protocolFactory(first) : null;
  }
}
