package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.HealthSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The health probe on the Thrift port on Netty servers, one run per cell of the suite's matrix
 * ({@link NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyHealthTest extends HealthSuite {}
