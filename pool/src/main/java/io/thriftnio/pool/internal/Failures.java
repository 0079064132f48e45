package io.thriftnio.pool.internal;

import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;

/** Which call failures leave a connection fit for the next call. */
public final class Failures {
  private Failures() {}

  /**
   * Whether a connection whose call ended with {@code failure} may go back to the pool (given that
   * it has no unread bytes, checked separately). Only failures that come from a whole, well-formed
   * reply qualify:
   *
   * <ul>
   *   <li>a declared IDL exception (generated exceptions are {@code TException}s that implement
   *       {@code TBase});
   *   <li>a {@code TApplicationException}, except {@code BAD_SEQUENCE_ID}: the client raises that
   *       one after reading only the header of a reply meant for another call, so the stream is out
   *       of step.
   * </ul>
   *
   * Everything else (transport, protocol, timeout, anything unexpected) may leave half a reply on
   * the wire.
   */
  public static boolean keepsConnection(Throwable failure) {
    if (failure instanceof TApplicationException) {
      return ((TApplicationException) failure).getType() != TApplicationException.BAD_SEQUENCE_ID;
    }
    return failure instanceof TException && failure instanceof TBase;
  }
}
