package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.CallPathSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The call path suite on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyCallPathTest extends CallPathSuite {}
