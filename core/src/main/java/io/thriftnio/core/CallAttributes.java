package io.thriftnio.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The attributes and the outgoing headers of one call, which its interceptors may set from
 * different threads: two small maps, made on the first set, guarded by this object's monitor, which
 * no user code can hold (the context is theirs; this object only the context reaches).
 */
final class CallAttributes {

  @GuardedBy("this")
  private Map<Object, Object> attributes;

  /** Headers this side sends, in the order they were first set. */
  @GuardedBy("this")
  private Map<String, String> outgoing;

  synchronized Object get(Object key) {
    return attributes == null ? null : attributes.get(key);
  }

  /** Sets {@code key} to {@code value}; {@code null} removes it. */
  synchronized void set(Object key, Object value) {
    if (value == null) {
      if (attributes != null) {
        attributes.remove(key);
      }
      return;
    }
    if (attributes == null) {
      attributes = new HashMap<>(4);
    }
    attributes.put(key, value);
  }

  /** Sets an outgoing header; {@code null} removes it. */
  synchronized void putOutgoing(String name, String value) {
    if (value == null) {
      if (outgoing != null) {
        outgoing.remove(name);
      }
      return;
    }
    if (outgoing == null) {
      outgoing = new LinkedHashMap<>(4);
    }
    outgoing.put(name, value);
  }

  /**
   * Sets a reply header once {@link ResponseHeaderRules} accept it against those set so far: the
   * check and the set are one step, so the bounds hold against concurrent setters too.
   */
  synchronized void putResponseHeader(String name, String value) {
    ResponseHeaderRules.check(name, value, outgoing());
    putOutgoing(name, value);
  }

  /** The outgoing headers, a read-only copy in the order they were first set. */
  synchronized Map<String, String> outgoing() {
    return outgoing == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(outgoing));
  }
}
