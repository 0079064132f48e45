/**
 * Test support for SASL: {@link io.thriftnio.testkit.sasl.TestKdc}, a Kerberos KDC per test JVM
 * with keytab logins, for the GSSAPI tests. Not published.
 */
package io.thriftnio.testkit.sasl;
