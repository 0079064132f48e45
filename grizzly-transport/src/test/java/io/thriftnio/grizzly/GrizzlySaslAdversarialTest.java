package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.SaslAdversarialSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Hostile and broken SASL peers on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlySaslAdversarialTest extends SaslAdversarialSuite {}
