package io.thriftnio.pool;

import io.thriftnio.core.NotRun;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.TooManyCallsInFlightException;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;

/** Which call failures leave a connection fit for the next call. */
final class Failures {
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
      return !answersAnotherCall((TApplicationException) failure);
    }
    return failure instanceof TException && failure instanceof TBase;
  }

  /**
   * Whether a client refused a reply as no answer to its call: another sequence id, another
   * method's name, a message type no reply has. The connection is out of step, or its server
   * broken: it is not kept.
   */
  static boolean answersAnotherCall(TApplicationException e) {
    int type = e.getType();
    return type == TApplicationException.BAD_SEQUENCE_ID
        || type == TApplicationException.WRONG_METHOD_NAME
        || type == TApplicationException.INVALID_MESSAGE_TYPE;
  }

  /**
   * Whether a call that ended with {@code failure} failed in transport: the connection broke, timed
   * out or went out of step, so the request may or may not have reached a handler. Such a call may
   * be retried only if its method is idempotent, and counts towards an endpoint's ejection. Not
   * transport failures: an answer from the server (a declared exception, a {@code
   * TApplicationException} other than {@code BAD_SEQUENCE_ID}), the pool's own refusals ({@link
   * PoolException}: nothing was sent, and a borrow retries connects itself), a {@link
   * CallDeadlineException} (the caller's time is up, whatever the endpoint did), and requests a
   * channel refused before writing them.
   */
  public static boolean inTransport(Throwable failure) {
    Throwable f = unwrap(failure);
    if (f instanceof PoolException
        || f instanceof CallDeadlineException
        || f instanceof FrameSizeException
        || f instanceof TooManyCallsInFlightException) {
      return false;
    }
    if (f instanceof TApplicationException) {
      return ((TApplicationException) f).getType() == TApplicationException.BAD_SEQUENCE_ID;
    }
    return f instanceof org.apache.thrift.transport.TTransportException
        || f instanceof org.apache.thrift.protocol.TProtocolException
        || f instanceof IOException
        || f instanceof TimeoutException;
  }

  /**
   * Whether a call that ended with {@code failure} was refused by its server without running
   * ({@link NotRun}): a whole reply, so the connection is fit, and no handler saw the call, so it
   * may go to another endpoint whatever its method.
   */
  public static boolean notRun(Throwable failure) {
    return failure != null && NotRun.isNotRun(unwrap(failure));
  }

  /**
   * Whether {@code failure} is a "not run" refusal whose reason says the server is draining (the
   * word {@value #DRAINING} in its message): the endpoint is leaving, so its connections take no
   * new call.
   */
  public static boolean draining(Throwable failure) {
    Throwable f = unwrap(failure);
    for (int depth = 0; f != null && depth < 16; depth++, f = f.getCause()) {
      String message = f.getMessage();
      if (f instanceof TApplicationException
          && message != null
          && message.startsWith(NotRun.PREFIX)
          && NotRun.isNotRun(f)) {
        return message.toLowerCase(Locale.ROOT).contains(DRAINING);
      }
    }
    return false;
  }

  /** The word of a "not run" reason that says the server is draining. */
  static final String DRAINING = "draining";

  /** The failure inside the wrappers a {@code CompletableFuture} adds. */
  public static Throwable unwrap(Throwable failure) {
    Throwable f = failure;
    while ((f instanceof CompletionException || f instanceof ExecutionException)
        && f.getCause() != null) {
      f = f.getCause();
    }
    return f;
  }
}
