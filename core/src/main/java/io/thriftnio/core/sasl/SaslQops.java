package io.thriftnio.core.sasl;

import java.util.ArrayList;
import java.util.List;

/** {@link javax.security.sasl.Sasl#QOP}'s comma-separated list, both ways. */
final class SaslQops {

  private SaslQops() {}

  /** {@code auth-conf,auth-int,auth}: the property's value for {@code qop}, in its order. */
  static String saslList(List<SaslQop> qop) {
    StringBuilder s = new StringBuilder();
    for (SaslQop q : qop) {
      s.append(s.length() == 0 ? "" : ",").append(q.saslName());
    }
    return s.toString();
  }

  /**
   * The qualities of protection a property value names, in its order.
   *
   * @throws IllegalArgumentException naming a value that is none
   */
  static List<SaslQop> parse(String value) {
    List<SaslQop> qop = new ArrayList<>();
    for (String name : value.split(",")) {
      SaslQop q = SaslQop.of(name);
      if (!qop.contains(q)) {
        qop.add(q);
      }
    }
    return qop;
  }
}
