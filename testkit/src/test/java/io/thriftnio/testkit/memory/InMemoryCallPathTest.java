package io.thriftnio.testkit.memory;

import io.thriftnio.testkit.conformance.CallPathSuite;
import org.junit.jupiter.params.provider.ArgumentsSource;

/** The call path suite on {@link InMemoryThriftServer}: core's call path without socket IO. */
@ArgumentsSource(MemoryCells.class)
class InMemoryCallPathTest extends CallPathSuite {}
