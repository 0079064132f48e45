package io.thriftnio.grizzly.internal;

import org.glassfish.grizzly.CloseListener;
import org.glassfish.grizzly.Closeable;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.ICloseType;

/** Close notification without Grizzly's deprecated and raw listener types. */
public final class CloseListeners {
  private CloseListeners() {}

  /** Runs {@code action} once {@code connection} is closed, for any reason. */
  // ICloseType is deprecated in Grizzly 4 but still the type CloseListener is declared with.
  @SuppressWarnings({"rawtypes", "unchecked", "deprecation"})
  public static void onClose(Connection<?> connection, Runnable action) {
    CloseListener<Closeable, ICloseType> listener = (closeable, type) -> action.run();
    connection.addCloseListener((CloseListener) listener);
  }
}
