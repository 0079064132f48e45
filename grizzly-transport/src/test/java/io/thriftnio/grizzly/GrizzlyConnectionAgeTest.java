package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ConnectionAgeSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The connection age suite on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyConnectionAgeTest extends ConnectionAgeSuite {}
