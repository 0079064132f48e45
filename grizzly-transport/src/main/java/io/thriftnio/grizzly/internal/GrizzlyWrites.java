package io.thriftnio.grizzly.internal;

import java.util.function.Consumer;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteResult;

/** Async writes with a plain callback, hiding Grizzly's wildcard-heavy generics. */
public final class GrizzlyWrites {
  private GrizzlyWrites() {}

  /**
   * Queues {@code buffer} on the connection's async write queue.
   *
   * @param done receives {@code null} once the buffer is written, or the failure
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void write(Connection<?> connection, Buffer buffer, Consumer<Throwable> done) {
    CompletionHandler<WriteResult> handler =
        new CompletionHandler<WriteResult>() {
          @Override
          public void completed(WriteResult result) {
            done.accept(null);
          }

          @Override
          public void failed(Throwable t) {
            done.accept(t);
          }

          @Override
          public void cancelled() {
            done.accept(new java.util.concurrent.CancellationException("write cancelled"));
          }

          @Override
          public void updated(WriteResult result) {}
        };
    ((Connection) connection).write(buffer, (CompletionHandler) handler);
  }
}
