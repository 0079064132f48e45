package io.thriftnio.core;

import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.settings.SettingException;

/** The checks of {@link ClientOptions.Builder#build()} that look at more than one setting. */
final class ClientOptionsChecks {

  private ClientOptionsChecks() {}

  /** An HTTP path: well formed, and only with {@link WireKind#HTTP}. */
  static void httpPath(String httpPath, WireKind wireKind) {
    if (httpPath == null) {
      return;
    }
    boolean ok = httpPath.startsWith("/");
    for (int i = 0; ok && i < httpPath.length(); i++) {
      char c = httpPath.charAt(i);
      ok = c > ' ' && c < 0x7f;
    }
    if (!ok) {
      throw new SettingException(
          "httpPath",
          "\"" + httpPath + "\"",
          "an absolute path, starting with /, of visible ASCII characters");
    }
    if (wireKind != WireKind.HTTP) {
      throw new SettingException(
          "httpPath",
          "\"" + httpPath + "\"",
          "no path with wireKind "
              + wireKind
              + ", which would ignore it; set wireKind(HTTP) or drop the path");
    }
  }

  /** SASL settings exactly when the wire kind is {@link WireKind#SASL}. */
  static void sasl(ClientSasl sasl, WireKind wireKind) {
    if (wireKind == WireKind.SASL && sasl == null) {
      throw new SettingException(
          "sasl",
          null,
          "set when wireKind is SASL: the mechanism and credentials each connection negotiates"
              + " with");
    }
    if (wireKind != WireKind.SASL && sasl != null) {
      throw new SettingException(
          "sasl",
          sasl,
          "none with wireKind "
              + wireKind
              + ", which would ignore it; set wireKind(SASL) or drop sasl");
    }
  }
}
