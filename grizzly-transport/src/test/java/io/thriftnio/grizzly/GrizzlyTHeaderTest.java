package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.THeaderSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * THeader peers beside framed ones on Grizzly servers, one run per cell of the suite's matrix
 * ({@link GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyTHeaderTest extends THeaderSuite {}
