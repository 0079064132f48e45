package io.thriftnio.spring.boot;

import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The Thrift protocols a server or a client pool can be set to by name. The library has no such
 * enum: its builders take any {@code TProtocolFactory} (a decorated or a custom one too), so the
 * names a property can hold are the starter's own.
 */
public enum ThriftProtocol {
  /** {@code TBinaryProtocol}, Thrift's default. */
  BINARY,
  /** {@code TCompactProtocol}. */
  COMPACT,
  /** {@code TJSONProtocol}. */
  JSON;

  /**
   * A new factory of this protocol.
   *
   * @return the factory
   */
  public TProtocolFactory factory() {
    switch (this) {
      case COMPACT:
        return new TCompactProtocol.Factory();
      case JSON:
        return new TJSONProtocol.Factory();
      default:
        return new TBinaryProtocol.Factory();
    }
  }
}
