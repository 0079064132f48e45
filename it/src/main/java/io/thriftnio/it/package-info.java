/**
 * Integration tests and the bench CLI: conformance runs for every transport and strategy, interop
 * with stock Thrift, and the throughput matrix. Not published.
 */
package io.thriftnio.it;
