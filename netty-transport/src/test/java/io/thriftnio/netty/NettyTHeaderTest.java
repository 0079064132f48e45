package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.THeaderSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * THeader peers beside framed ones on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyTHeaderTest extends THeaderSuite {}
