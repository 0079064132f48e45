package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.HttpSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * HTTP peers beyond the conformance suite on Grizzly servers, one run per cell of the suite's
 * matrix ({@link GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyHttpTest extends HttpSuite {}
