package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ServerHeadersSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The server headers suite (response headers, deadlines, out-of-order replies) on Grizzly servers,
 * one run per cell of the suite's matrix ({@link GrizzlyCells}).
 */
@ArgumentsSource(GrizzlyCells.class)
class GrizzlyServerHeadersTest extends ServerHeadersSuite {}
