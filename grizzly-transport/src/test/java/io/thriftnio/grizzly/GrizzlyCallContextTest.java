package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.CallContextSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The call context suite, plain and over mutual TLS, on Grizzly servers, one run per cell of the
 * suite's matrix ({@link GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyCallContextTest extends CallContextSuite {}
