package io.thriftnio.core;

import org.apache.thrift.TApplicationException;

/**
 * The wire rule for a call a server refused without running its handler, so that a caller may send
 * it elsewhere whatever its method does.
 *
 * <p>A thrift-nio server that refuses a call it read (overloaded, draining, past its deadline
 * before it started, over a limit) answers it with {@code TApplicationException(INTERNAL_ERROR)}
 * whose message starts with {@value #PREFIX}, for example {@code not run: the server is draining
 * (echo seqid 7)}. Stock clients in any language see the {@code INTERNAL_ERROR} they always saw;
 * this library's pools read the prefix and send the call to another endpoint, for any method,
 * counting it apart from failures. A reply without the prefix says nothing about whether the
 * handler ran.
 */
public final class NotRun {
  /** The start of the message of every "not run" refusal: {@value}. */
  public static final String PREFIX = "not run: ";

  private NotRun() {}

  /**
   * The refusal reply's exception for {@code reason}.
   *
   * @param reason why the call was not run, e.g. {@code the server is draining (echo seqid 7)}
   * @return {@code TApplicationException(INTERNAL_ERROR, "not run: " + reason)}
   */
  public static TApplicationException exception(String reason) {
    return new TApplicationException(TApplicationException.INTERNAL_ERROR, PREFIX + reason);
  }

  /**
   * Whether {@code failure}, or a cause of it, is a server's "not run" refusal.
   *
   * @param failure what a call failed with; {@code null} gives {@code false}
   */
  public static boolean isNotRun(Throwable failure) {
    Throwable f = failure;
    for (int depth = 0; f != null && depth < 16; depth++, f = f.getCause()) { // a cycle ends too
      if (f instanceof TApplicationException
          && ((TApplicationException) f).getType() == TApplicationException.INTERNAL_ERROR
          && f.getMessage() != null
          && f.getMessage().startsWith(PREFIX)) {
        return true;
      }
    }
    return false;
  }
}
