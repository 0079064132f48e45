package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.SaslGssapiSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Kerberos (GSSAPI) on Netty servers, one run per cell of the suite's matrix ({@link NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettySaslGssapiTest extends SaslGssapiSuite {}
