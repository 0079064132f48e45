package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.UnframedSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Unframed peers beyond the conformance suite on Netty servers, one run per cell of the suite's
 * matrix ({@link NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyUnframedTest extends UnframedSuite {}
