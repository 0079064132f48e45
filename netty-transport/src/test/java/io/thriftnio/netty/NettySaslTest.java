package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.SaslSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * libthrift's SASL client on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettySaslTest extends SaslSuite {}
