package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.CallPathSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The call path suite on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyCallPathTest extends CallPathSuite {}
