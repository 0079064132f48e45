package io.thriftnio.core;

import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.settings.SettingException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link ServerConfig}'s checks of the SASL settings against the rest of the server's. */
final class SaslServerChecks {
  private static final Logger log = LoggerFactory.getLogger(SaslServerChecks.class);

  /** A frame length of 16 MiB or more starts with 01: SASL's {@code START}. */
  static final int FIRST_LENGTH_LIKE_START = 1 << 24;

  private SaslServerChecks() {}

  /**
   * The server's SASL settings, checked.
   *
   * @throws SettingException if SASL and its settings do not go together, PLAIN would travel in
   *     clear, or a frame's first byte could be SASL's
   */
  static ServerSasl check(ServerBuilder<?> b, Set<WireKind> wireKinds, int maxFrameSize) {
    ServerSasl sasl = b.sasl;
    boolean accepted = wireKinds.contains(WireKind.SASL);
    if (accepted && sasl == null) {
      throw new SettingException("sasl", null, "set when wireKinds has SASL");
    }
    if (!accepted && sasl != null) {
      throw new SettingException("sasl", sasl, "null when wireKinds has no SASL: " + wireKinds);
    }
    if (sasl == null) {
      return null;
    }
    boolean framing = wireKinds.contains(WireKind.FRAMED) || wireKinds.contains(WireKind.HEADER);
    if (framing && maxFrameSize >= FIRST_LENGTH_LIKE_START) {
      throw new SettingException(
          "maxFrameSize",
          maxFrameSize,
          "< "
              + FIRST_LENGTH_LIKE_START
              + " with wireKinds "
              + wireKinds
              + ": a frame length of 16 MiB or more starts with 01, SASL's START, so the first"
              + " byte could not tell the two apart");
    }
    if (sasl.offersPlain() && b.tls == null) {
      if (!sasl.plainWithoutTls()) {
        throw new SettingException(
            "sasl",
            "PLAIN without tls",
            "a tls setting, as PLAIN sends passwords in clear; or"
                + " ServerSasl.Builder.plainWithoutTls(true) on a trusted network");
      }
      log.warn(
          "SASL PLAIN is offered without TLS (plainWithoutTls): passwords travel in clear on {}",
          b.bindAddress);
    }
    return sasl;
  }
}
