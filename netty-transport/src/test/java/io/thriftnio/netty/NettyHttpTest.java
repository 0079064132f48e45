package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.HttpSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * HTTP peers beyond the conformance suite on Netty servers, one run per cell of the suite's matrix
 * ({@link NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyHttpTest extends HttpSuite {}
