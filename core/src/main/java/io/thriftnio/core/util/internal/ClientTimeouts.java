package io.thriftnio.core.util.internal;

import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a request's {@value #HEADER} header ({@code ServerCallContext.CLIENT_TIMEOUT_HEADER}): the
 * time the caller waits for the reply, whole milliseconds as a decimal string (fbthrift's name and
 * unit).
 *
 * <p>A value that is not a whole number of milliseconds, or is negative, is ignored with a DEBUG
 * line, not refused: the header is the caller's hint, the call is served as it would be without it,
 * and a peer whose library writes the header differently still gets its answers. {@code 0} means no
 * deadline, as in fbthrift. A value above about 73 years is taken as 73 years, so that deadlines
 * stay comparable by subtraction.
 */
public final class ClientTimeouts {

  /** The header's name: {@value}. */
  public static final String HEADER = "client_timeout";

  private static final Logger log = LoggerFactory.getLogger(ClientTimeouts.class);

  /** About 73 years in nanoseconds, as {@code CallDeadlines}' longest delay. */
  private static final long MAX_NANOS = Long.MAX_VALUE / 4;

  private ClientTimeouts() {}

  /**
   * The time the caller waits, in nanoseconds, or 0 for none (no header, {@code 0}, or ignored).
   *
   * @param headers the request's headers; {@code Map.of()} costs one lookup
   * @param logIgnored whether to log an ignored value (not when the headers are read again)
   * @param from the connection that sent them, for the DEBUG line; may be {@code null}
   */
  public static long nanos(
      Map<String, String> headers, boolean logIgnored, CallConnection<?> from) {
    String value = headers.get(HEADER);
    if (value == null) {
      return 0;
    }
    long millis = parse(value);
    if (millis < 0) {
      if (!logIgnored) {
        return 0;
      }
      log.debug(
          "Ignoring {} \"{}\" from {}: not a whole number of milliseconds >= 0; the call has no"
              + " deadline",
          HEADER,
          value.length() > 32 ? value.substring(0, 32) + "..." : value,
          from == null ? null : from.remoteAddress());
      return 0;
    }
    return millis >= MAX_NANOS / 1_000_000 ? MAX_NANOS : millis * 1_000_000;
  }

  /** Decimal digits only (no sign, no space), saturating; -1 if it is not that. */
  private static long parse(String value) {
    int length = value.length();
    if (length == 0) {
      return -1;
    }
    long millis = 0;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      millis = millis >= Long.MAX_VALUE / 10 ? Long.MAX_VALUE / 10 : millis * 10 + (c - '0');
    }
    return millis;
  }
}
