package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.HealthSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The health probe on the Thrift port on Grizzly servers, one run per cell of the suite's matrix
 * ({@link GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyHealthTest extends HealthSuite {}
