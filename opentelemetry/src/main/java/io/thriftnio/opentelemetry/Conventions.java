package io.thriftnio.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What the instrumentation API's extractors leave to us: {@code error.type} from a call's outcome,
 * and which addresses are IP addresses to report (never looked up).
 */
final class Conventions {

  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  private Conventions() {}

  /** {@code address} if it is an IP socket address with its IP known, else {@code null}. */
  static InetSocketAddress resolved(SocketAddress address) {
    return address instanceof InetSocketAddress inet && inet.getAddress() != null ? inet : null;
  }
}
