package io.thriftnio.zookeeper;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;

/** Checks of the ZooKeeper path parts, with messages in the project's form. */
final class Paths {
  private Paths() {}

  static String basePath(String basePath) {
    Checks.notNull("basePath", basePath);
    if (!basePath.startsWith("/") || basePath.length() < 2 || basePath.endsWith("/")) {
      throw new SettingException(
          "basePath", "\"" + basePath + "\"", "an absolute path such as /services");
    }
    return basePath;
  }

  static String serviceName(String name) {
    return part("serviceName", name);
  }

  static String part(String what, String value) {
    Checks.notNull(what, value);
    if (value.isBlank() || value.contains("/")) {
      throw new SettingException(what, "\"" + value + "\"", "one path part, not blank, no /");
    }
    return value;
  }
}
