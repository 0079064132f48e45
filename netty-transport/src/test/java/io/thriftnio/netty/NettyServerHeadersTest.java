package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ServerHeadersSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The server headers suite (response headers, deadlines, out-of-order replies) on Netty servers,
 * one run per cell of the suite's matrix ({@link NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyServerHeadersTest extends ServerHeadersSuite {}
