package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.CloseDrainSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The close under traffic (connect flood, pipelined calls in the drain) on Netty servers, one run
 * per cell of the suite's matrix ({@link NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyCloseDrainTest extends CloseDrainSuite {}
