package io.thriftnio.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanBuilder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The attributes of OpenTelemetry's semantic conventions the spans carry (RPC spans, experimental
 * conventions of 1.37), and how an address becomes them. Declared here rather than taken from the
 * incubating semantic-conventions artifact, which makes no promise of stability.
 */
final class Conventions {

  static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> PEER_ADDRESS = AttributeKey.stringKey("network.peer.address");
  static final AttributeKey<Long> PEER_PORT = AttributeKey.longKey("network.peer.port");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /**
   * How long the call waited to start ({@code ServerCallContext.queueTime()}), in seconds: the
   * library's own attribute, named in the RPC conventions' per-system namespace (issue 41).
   */
  static final AttributeKey<Double> QUEUE_DURATION =
      AttributeKey.doubleKey("rpc.thrift.queue.duration");

  private Conventions() {}

  /**
   * Sets {@code network.peer.address} and {@code network.peer.port} from {@code address}: its IP
   * address as text (never a reverse lookup); nothing for an unresolved or non-IP address.
   */
  static void peer(SpanBuilder span, SocketAddress address) {
    if (address instanceof InetSocketAddress) {
      InetSocketAddress inet = (InetSocketAddress) address;
      InetAddress ip = inet.getAddress();
      if (ip != null) {
        span.setAttribute(PEER_ADDRESS, ip.getHostAddress());
        span.setAttribute(PEER_PORT, (long) inet.getPort());
      }
    }
  }

  /**
   * Sets {@code server.address} and {@code server.port} from {@code address}: the host name it was
   * made with, or its IP address as text (never a reverse lookup); nothing for a non-IP address.
   */
  static void server(SpanBuilder span, SocketAddress address) {
    if (address instanceof InetSocketAddress) {
      InetSocketAddress inet = (InetSocketAddress) address;
      span.setAttribute(SERVER_ADDRESS, inet.getHostString());
      span.setAttribute(SERVER_PORT, (long) inet.getPort());
    }
  }
}
