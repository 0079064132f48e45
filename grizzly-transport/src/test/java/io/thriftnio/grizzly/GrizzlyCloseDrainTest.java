package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.CloseDrainSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The close under traffic (connect flood, pipelined calls in the drain) on Grizzly servers, one run
 * per cell of the suite's matrix ({@link GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyCloseDrainTest extends CloseDrainSuite {}
