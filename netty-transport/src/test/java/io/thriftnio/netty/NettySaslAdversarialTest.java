package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.SaslAdversarialSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Hostile and broken SASL peers on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettySaslAdversarialTest extends SaslAdversarialSuite {}
