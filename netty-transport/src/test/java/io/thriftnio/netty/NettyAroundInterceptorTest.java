package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.AroundInterceptorSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The around-interceptor suite on Netty servers, one run per cell of the suite's matrix ({@link
 * NettyCells}).
 */
@ArgumentsSource(NettyCells.class)
class NettyAroundInterceptorTest extends AroundInterceptorSuite {}
