package io.thriftnio.it.bench;

import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;

/** Option converters shared by the commands. */
final class Cli {

  private Cli() {}

  /** Reads {@code 500ms}, {@code 2s}, {@code 1.5s}, {@code 1m}; a bare number is seconds. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return parseDuration(value);
    }
  }

  static Duration parseDuration(String value) {
    String s = value.trim().toLowerCase(Locale.ROOT);
    long unitNanos;
    String number;
    if (s.endsWith("ms")) {
      unitNanos = 1_000_000L;
      number = s.substring(0, s.length() - 2);
    } else if (s.endsWith("s")) {
      unitNanos = 1_000_000_000L;
      number = s.substring(0, s.length() - 1);
    } else if (s.endsWith("m")) {
      unitNanos = 60_000_000_000L;
      number = s.substring(0, s.length() - 1);
    } else {
      unitNanos = 1_000_000_000L;
      number = s;
    }
    try {
      BigDecimal nanos = new BigDecimal(number).multiply(BigDecimal.valueOf(unitNanos));
      BigDecimal max = BigDecimal.valueOf(Duration.ofHours(1).toNanos());
      if (nanos.signum() < 0 || nanos.compareTo(max) > 0) {
        throw new CommandLine.TypeConversionException("duration: " + value + " (expected: 0..1h)");
      }
      return Duration.ofNanos(nanos.longValue());
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException(
          "duration: " + value + " (expected: a number with ms, s or m, e.g. 500ms, 2s, 1m)");
    }
  }

  /** {@code d} as {@link #parseDuration} reads it back: {@code 100us}, {@code 10ms}, {@code 2s}. */
  static String format(Duration d) {
    long nanos = d.toNanos();
    if (nanos % 1_000_000_000L == 0) {
      return nanos / 1_000_000_000L + "s";
    }
    if (nanos % 1_000_000L == 0) {
      return nanos / 1_000_000L + "ms";
    }
    return nanos / 1000 + "us";
  }

  /** Reads {@code HOST:PORT}, {@code [v6]:PORT}. */
  static final class AddressConverter implements CommandLine.ITypeConverter<InetSocketAddress> {
    @Override
    public InetSocketAddress convert(String value) {
      int colon = value.lastIndexOf(':');
      if (colon <= 0 || colon == value.length() - 1) {
        throw new CommandLine.TypeConversionException(
            "target: " + value + " (expected: HOST:PORT)");
      }
      String host = value.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(value.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException(
            "target: " + value + " (expected: HOST:PORT with a numeric port)");
      }
      if (port < 1 || port > 65535) {
        throw new CommandLine.TypeConversionException(
            "target port: " + port + " (expected: 1..65535)");
      }
      return new InetSocketAddress(host, port);
    }
  }
}
