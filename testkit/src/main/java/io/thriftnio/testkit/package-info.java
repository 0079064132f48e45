/**
 * Test support shared by every thrift-nio module: the {@code bench.thrift} service (generated code
 * in {@code io.thriftnio.testkit.gen}), its reference handlers, checkable payloads, and the
 * transport conformance suite in {@code io.thriftnio.testkit.conformance}. Not published.
 */
package io.thriftnio.testkit;
