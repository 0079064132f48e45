package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.CallContextSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The call context suite, plain and over mutual TLS, on Netty servers, one run per cell of the
 * suite's matrix ({@link NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyCallContextTest extends CallContextSuite {}
