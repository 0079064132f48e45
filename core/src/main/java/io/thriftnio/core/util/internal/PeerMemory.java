package io.thriftnio.core.util.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The peer addresses (the port ignored) a log line was written for lately, so that a line about a
 * peer's own doing is written once per peer, not once per connection or call: a client retrying a
 * wrong password, a client of the wrong shape. Bounded: the least recently seen of {@value
 * #RECENT_PEERS} is forgotten first. Any thread.
 */
public final class PeerMemory {

  /** Peers remembered; the oldest is forgotten first. */
  public static final int RECENT_PEERS = 1024;

  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<String, Boolean> seen =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > RECENT_PEERS;
        }
      };

  /**
   * Whether {@code peer}'s address is new among the recent ones (and remember it): write the line
   * then.
   *
   * @param peer a remote address; {@code null} is one peer
   */
  public boolean first(SocketAddress peer) {
    Object key =
        peer instanceof InetSocketAddress a && a.getAddress() != null ? a.getAddress() : peer;
    synchronized (lock) {
      return seen.put(String.valueOf(key), Boolean.TRUE) == null;
    }
  }
}
