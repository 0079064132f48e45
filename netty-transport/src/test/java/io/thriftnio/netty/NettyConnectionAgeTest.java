package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ConnectionAgeSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The connection age suite on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyConnectionAgeTest extends ConnectionAgeSuite {}
