package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ConnectionEventsSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The connection events suite on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyConnectionEventsTest extends ConnectionEventsSuite {}
