package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.SaslSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * libthrift's SASL client on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlySaslTest extends SaslSuite {}
