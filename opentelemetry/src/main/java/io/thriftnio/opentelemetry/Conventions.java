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

  /**
   * How long the call waited to start ({@code ServerCallContext.queueTime()}), in seconds: the
   * library's own attribute, named in the RPC conventions' per-system namespace (issue 41).
   */
  static final AttributeKey<Double> QUEUE_DURATION =
      AttributeKey.doubleKey("rpc.thrift.queue.duration");

  private Conventions() {}

  /** {@code address} if it is an IP socket address with its IP known, else {@code null}. */
  static InetSocketAddress resolved(SocketAddress address) {
    return address instanceof InetSocketAddress inet && inet.getAddress() != null ? inet : null;
  }
}
