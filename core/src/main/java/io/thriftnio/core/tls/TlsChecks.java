package io.thriftnio.core.tls;

import io.thriftnio.core.settings.SettingException;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;

/** Validation shared by {@link ServerTls} and {@link ClientTls}. */
final class TlsChecks {
  private TlsChecks() {}

  static List<String> protocols(List<String> protocols) {
    if (protocols == null || protocols.isEmpty() || hasNull(protocols)) {
      throw new SettingException(
          "protocols", protocols, "a non-empty list, e.g. [TLSv1.3, TLSv1.2]");
    }
    Set<String> supported = Set.of(supported());
    for (String p : protocols) {
      if (!supported.contains(p)) {
        throw new SettingException("protocols", protocols, "among " + supported);
      }
    }
    return List.copyOf(protocols);
  }

  static List<String> cipherSuites(List<String> cipherSuites) {
    if (cipherSuites == null || hasNull(cipherSuites)) {
      throw new SettingException("cipherSuites", cipherSuites, "a list, empty for the defaults");
    }
    return List.copyOf(cipherSuites);
  }

  // List.of(...).contains(null) throws: look element by element.
  private static boolean hasNull(List<String> values) {
    for (String v : values) {
      if (v == null) {
        return true;
      }
    }
    return false;
  }

  private static String[] supported() {
    try {
      return SSLContext.getDefault().getSupportedSSLParameters().getProtocols();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no default SSLContext", e);
    }
  }
}
