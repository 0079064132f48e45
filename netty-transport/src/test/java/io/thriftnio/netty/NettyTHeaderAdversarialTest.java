package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.THeaderAdversarialSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Hostile and broken THeader peers on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyTHeaderAdversarialTest extends THeaderAdversarialSuite {}
