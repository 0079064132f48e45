package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.AroundInterceptorSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The around-interceptor suite on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyAroundInterceptorTest extends AroundInterceptorSuite {}
