package io.thriftnio.grizzly;

import java.io.IOException;
import java.util.Objects;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * Hands the bytes an HTTP client connection reads to the {@link GrizzlyHttpChannel} that owns it,
 * which finds the responses in them, and tells it when the connection closes. The last filter of an
 * HTTP client chain: {@code TransportFilter -> [SSLFilter] -> HttpClientFilter}. One instance
 * serves every connection of a chain.
 */
final class HttpClientFilter extends BaseFilter {

  /** Where a connection's bytes go; called on the thread that read them, in order. */
  interface Sink {
    void onBytes(Buffer bytes);

    void onClosed(Throwable cause);
  }

  private static final Attribute<Sink> SINK =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(HttpClientFilter.class.getName() + ".sink");

  static void register(Connection<?> connection, Sink sink) {
    SINK.set(
        Objects.requireNonNull(connection, "connection"), Objects.requireNonNull(sink, "sink"));
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    Sink sink = SINK.get(connection);
    if (sink == null) {
      connection.closeSilently(); // bytes before any request: not an answer to anything
      return ctx.getStopAction();
    }
    sink.onBytes(ctx.getMessage());
    return ctx.getStopAction();
  }

  @Override
  public NextAction handleClose(FilterChainContext ctx) throws IOException {
    Sink sink = SINK.get(ctx.getConnection());
    if (sink != null) {
      sink.onClosed(null);
    }
    return ctx.getInvokeAction();
  }

  @Override
  public void exceptionOccurred(FilterChainContext ctx, Throwable error) {
    Sink sink = SINK.get(ctx.getConnection());
    if (sink != null) {
      sink.onClosed(error);
    }
  }
}
