/**
 * The transport conformance suite: behaviour written once and run for every server, strategy and
 * client kind through small subclasses of {@link io.thriftnio.testkit.conformance.ConformanceSuite}
 * and {@link io.thriftnio.testkit.conformance.StrategyContractSuite}.
 */
package io.thriftnio.testkit.conformance;
