package io.thriftnio.it.bench;

import java.util.List;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/** The protocol names the CLI accepts. */
final class Protocols {

  static final List<String> NAMES = List.of("binary", "compact", "json");

  private Protocols() {}

  static TProtocolFactory factory(String name) {
    switch (name) {
      case "binary":
        return new TBinaryProtocol.Factory();
      case "compact":
        return new TCompactProtocol.Factory();
      case "json":
        return new TJSONProtocol.Factory();
      default:
        throw new IllegalArgumentException(
            "protocol: " + name + " (expected: one of " + NAMES + ")");
    }
  }
}
