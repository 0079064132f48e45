package io.thriftnio.testkit.memory;

import io.thriftnio.testkit.conformance.CallContextSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/** The call context suite on {@link InMemoryThriftServer}, plain connections (no TLS in memory). */
@ArgumentsSource(MemoryCells.class)
class InMemoryCallContextTest extends CallContextSuite {}
