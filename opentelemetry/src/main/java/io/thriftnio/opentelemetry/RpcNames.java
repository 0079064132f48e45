package io.thriftnio.opentelemetry;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.thrift.protocol.TMultiplexedProtocol;

/**
 * A call's span name, service and method, from the name in its message header: {@code
 * "Service:method"} for a multiplexed call, else the configured service, else none. Kept per method
 * name, so that a call allocates no string for its span's name.
 */
final class RpcNames {

  /**
   * The method names kept. A service has a bounded set of them, but a peer may send any name: past
   * this many, names are made per call and not kept, so memory stays bounded.
   */
  static final int MAX_KEPT = 1024;

  /**
   * A call's span name, and the {@code rpc.service} ({@code null} if none) and {@code rpc.method}.
   */
  record Name(String spanName, String service, String method) {}

  private final String service;
  private final ConcurrentHashMap<String, Name> kept = new ConcurrentHashMap<>();

  /**
   * @param service the service of calls that are not multiplexed; {@code null} for none
   */
  RpcNames(String service) {
    this.service = service;
  }

  Name of(String methodName) {
    Name name = kept.get(methodName);
    if (name != null) {
      return name;
    }
    name = make(methodName);
    if (kept.size() < MAX_KEPT) {
      kept.putIfAbsent(methodName, name);
    }
    return name;
  }

  private Name make(String methodName) {
    // TMultiplexedProcessor splits at the first separator: so do we.
    int at = methodName.indexOf(TMultiplexedProtocol.SEPARATOR);
    String svc = at > 0 ? methodName.substring(0, at) : service;
    String method = at >= 0 ? methodName.substring(at + 1) : methodName;
    if (method.isEmpty()) {
      // A channel that could not read the request's header names the method "".
      return new Name(svc != null ? svc : "thrift", svc, method);
    }
    return new Name(svc != null ? svc + '/' + method : method, svc, method);
  }
}
