package io.thriftnio.core.internal.client;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a {@link PipelinedCalls} table needs from one connection; implemented by each IO adapter
 * (through {@link CodecChannel}). Not part of the API.
 */
public interface CallLink {
  /** Runs the drain: on the connection's IO thread, or at once on the calling thread. */
  void execute(Runnable drain);

  /**
   * Writes one message; the adapter adds the length prefix. Called by one drainer at a time, in
   * call order. {@code oneway} says whether the message is oneway: a link whose wire answers oneway
   * messages too (HTTP) must know which response to expect. {@code done} gets {@code null} once
   * written, or the failure.
   */
  void write(ByteBuffer payload, boolean oneway, Consumer<Throwable> done);

  /**
   * As {@link #write(ByteBuffer, boolean, Consumer)} on a wire that carries headers (THeader,
   * HTTP), with what the request's head says besides its length. By default the headers are
   * dropped: a link whose wire carries none.
   *
   * @param headers the request's headers
   * @param wireSeqId the sequence id of a THeader header, the connection's own
   * @param timeoutMillis how long the client waits for the reply, 0 for a oneway message
   */
  default void write(
      ByteBuffer payload,
      boolean oneway,
      Map<String, String> headers,
      int wireSeqId,
      long timeoutMillis,
      Consumer<Throwable> done) {
    write(payload, oneway, done);
  }

  /** Sends what the writes since the last flush have queued. */
  void flush();

  /** Whether the connection takes more writes now without growing its buffer past its mark. */
  boolean writable();

  /** Closes the connection; it need not wait. */
  void closeConnection();
}
