package io.thriftnio.core.util.internal;

import java.util.Map;

/**
 * The state of one {@code HeaderScope}: the headers it adds to the requests of the calls started on
 * its thread while it is open, and the headers of the last reply to one of them. The scope made
 * current on a thread is found with {@link #current()}, by the channels and transports that send
 * the requests and by the pools, which carry it over to the thread that sends a call that had to
 * wait. Not an API.
 */
public final class HeaderSlot {
  private static final ThreadLocal<HeaderSlot> CURRENT = new ThreadLocal<>();

  private final Map<String, String> request;
  private final HeaderSlot outer;
  private volatile Map<String, String> reply = Map.of();

  /**
   * @param request the headers to send, read-only
   */
  public HeaderSlot(Map<String, String> request) {
    this(request, null);
  }

  /**
   * A slot made over another for one call (a pool's interceptors' headers over a scope's): the
   * reply's headers reach both.
   *
   * @param request the headers to send, read-only
   * @param outer the slot that hears of the reply too; may be {@code null}
   */
  public HeaderSlot(Map<String, String> request, HeaderSlot outer) {
    this.request = request;
    this.outer = outer;
  }

  /** The slot current on this thread, or {@code null}: one {@code ThreadLocal} read. */
  public static HeaderSlot current() {
    return CURRENT.get();
  }

  /**
   * Makes {@code slot} current on this thread ({@code null}: none).
   *
   * @return the slot current before, to restore
   */
  public static HeaderSlot makeCurrent(HeaderSlot slot) {
    HeaderSlot before = CURRENT.get();
    if (slot == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(slot);
    }
    return before;
  }

  /** The headers to send, read-only. */
  public Map<String, String> request() {
    return request;
  }

  /** The headers of the last reply recorded; empty before the first. */
  public Map<String, String> reply() {
    return reply;
  }

  /** A reply to a call started in the scope arrived with {@code headers}. */
  public void replied(Map<String, String> headers) {
    this.reply = headers;
    if (outer != null) {
      outer.replied(headers);
    }
  }
}
