package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.THeaderAdversarialSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Hostile and broken THeader peers on Grizzly servers, one run per cell of the suite's matrix
 * ({@link GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyTHeaderAdversarialTest extends THeaderAdversarialSuite {}
