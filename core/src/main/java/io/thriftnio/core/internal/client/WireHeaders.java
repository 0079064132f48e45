package io.thriftnio.core.internal.client;

import io.thriftnio.core.util.internal.HeaderSlot;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One call's headers on its way through a channel: what its request sends (a {@code HeaderScope}'s,
 * then the interceptors' {@code setRequestHeader}s), and what its reply brought, recorded before
 * the call's future completes. Made only for a call that has headers to send or someone to tell of
 * the reply's (a scope, interceptors); other calls carry {@code null}. Not part of the API.
 */
public final class WireHeaders {
  private final HeaderSlot scope;
  private Map<String, String> request; // written by the calling thread before the call is queued
  private volatile Map<String, String> reply = Map.of();

  private WireHeaders(HeaderSlot scope) {
    this.scope = scope;
    this.request = scope == null ? Map.of() : scope.request();
  }

  /**
   * The headers of a call started now on this thread, or {@code null} when there is neither a scope
   * nor {@code interceptors}.
   */
  public static WireHeaders forCall(boolean interceptors) {
    return forCall(HeaderSlot.current(), interceptors);
  }

  /** As {@link #forCall(boolean)}, with the scope current when the call was made. */
  public static WireHeaders forCall(HeaderSlot scope, boolean interceptors) {
    return scope == null && !interceptors ? null : new WireHeaders(scope);
  }

  /** Adds {@code headers} to the request's; theirs win. */
  public void addRequest(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return;
    }
    Map<String, String> all = new LinkedHashMap<>(request);
    all.putAll(headers);
    request = all;
  }

  /** The request's headers. */
  public Map<String, String> request() {
    return request;
  }

  /** The reply arrived with {@code headers}; its scope hears of them too. */
  public void replied(Map<String, String> headers) {
    reply = headers;
    if (scope != null) {
      scope.replied(headers);
    }
  }

  /** The reply's headers; empty before it arrived. */
  public Map<String, String> reply() {
    return reply;
  }
}
