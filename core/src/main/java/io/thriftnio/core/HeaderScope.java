package io.thriftnio.core;

import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.util.internal.HeaderSlot;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Headers for the calls a thread starts, without writing an interceptor: while the scope is open,
 * every call started on the thread that opened it (a sync pool call, a channel or pool future, an
 * {@link AsyncClients} call, an async pool call) sends these headers with its request, and the
 * headers of its reply are readable afterwards from {@link #responseHeaders()}.
 *
 * <pre>{@code
 * try (HeaderScope scope = HeaderScope.open(Map.of("tenant", "acme"))) {
 *   String reply = pool.call(client -> client.echo("hi"));
 *   String region = scope.responseHeaders().get("region");
 * }
 * }</pre>
 *
 * <p>Headers travel on connections that carry them: THeader ({@link WireKind#HEADER}, as info
 * headers) and HTTP ({@link WireKind#HTTP}, as request header fields). On framed and unframed
 * connections they are sent nowhere, never an error. An interceptor's {@link
 * ClientCallContext#setRequestHeader} of the same name wins. A scope opened inside another adds its
 * headers to the outer one's, its own winning. A pool call that waits for a connection sends the
 * headers that were current when it was made.
 *
 * <p>Close the scope on the thread that opened it (try-with-resources); it makes the scope that was
 * current before it current again. The scope is a handle, safe to read from any thread.
 */
public final class HeaderScope implements AutoCloseable {

  private final HeaderSlot slot;
  private final HeaderSlot before;
  private final Thread owner = Thread.currentThread();
  private boolean closed;

  private HeaderScope(HeaderSlot slot, HeaderSlot before) {
    this.slot = slot;
    this.before = before;
  }

  /**
   * Opens a scope on the current thread: the calls it starts until {@link #close()} send {@code
   * headers}.
   *
   * @param headers the request headers; neither a name nor a value may be {@code null}
   * @return the scope, current on this thread
   */
  public static HeaderScope open(Map<String, String> headers) {
    Checks.notNull("headers", headers);
    HeaderSlot outer = HeaderSlot.current();
    Map<String, String> all = new LinkedHashMap<>(outer == null ? Map.of() : outer.request());
    headers.forEach(
        (name, value) ->
            all.put(Checks.notNull("headers' name", name), Checks.notNull(name, value)));
    HeaderSlot slot = new HeaderSlot(Collections.unmodifiableMap(all));
    return new HeaderScope(slot, HeaderSlot.makeCurrent(slot));
  }

  /**
   * The headers the scope's calls send: its own and those of the scopes it was opened in.
   *
   * @return the headers, read-only
   */
  public Map<String, String> requestHeaders() {
    return slot.request();
  }

  /**
   * The headers of the last reply to a call started in the scope: THeader info headers, or HTTP
   * response header fields (names lower-cased). Empty before the first reply, and on framed and
   * unframed connections. With several calls in flight at once, the reply that arrived last.
   *
   * @return the headers, read-only
   */
  public Map<String, String> responseHeaders() {
    return slot.reply();
  }

  /**
   * Ends the scope: the scope current before it is current again. Idempotent.
   *
   * @throws IllegalStateException if called on another thread than the one that opened it
   */
  @Override
  public void close() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException(
          "HeaderScope opened on " + owner.getName() + " closed on another thread");
    }
    if (closed) {
      return;
    }
    closed = true;
    HeaderSlot.makeCurrent(before);
  }
}
