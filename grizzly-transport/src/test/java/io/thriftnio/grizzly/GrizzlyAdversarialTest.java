package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.AdversarialSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The adversarial suite on Grizzly servers, one run per cell of the suite's matrix ({@link
 * GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyAdversarialTest extends AdversarialSuite {}
