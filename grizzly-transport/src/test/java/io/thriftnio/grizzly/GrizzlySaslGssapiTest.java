package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.SaslGssapiSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Kerberos (GSSAPI) on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlySaslGssapiTest extends SaslGssapiSuite {}
