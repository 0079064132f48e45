package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ConnectionEventsSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The connection events suite on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyConnectionEventsTest extends ConnectionEventsSuite {}
