package io.thriftnio.spring.boot;

import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** Spring SSL bundles by name, with the property that named them in the errors. */
final class Bundles {

  private Bundles() {}

  static SslBundle get(SslBundles bundles, String name, String property) {
    if (bundles == null) {
      throw new IllegalStateException(
          property + ": '" + name + "' (expected: a bundle of spring.ssl.bundle.*; none defined)");
    }
    try {
      return bundles.getBundle(name);
    } catch (NoSuchSslBundleException e) {
      throw new IllegalStateException(
          property + ": '" + name + "' (expected: a bundle of spring.ssl.bundle.*)", e);
    }
  }
}
