/**
 * The transport suites: behaviour written once and run on every transport through small subclasses.
 * A suite that runs once per server of a matrix extends {@link
 * io.thriftnio.testkit.conformance.ServerCellSuite} and names its {@link
 * io.thriftnio.testkit.conformance.Matrix}; a transport says once which servers make up each matrix
 * (a {@link io.thriftnio.testkit.conformance.TransportCells}), and its subclass of the suite names
 * that and nothing else. {@link io.thriftnio.testkit.conformance.ConformanceSuite} lists its cells
 * (with their client kinds) per transport; TLS is {@link
 * io.thriftnio.testkit.conformance.TlsSuite}.
 */
package io.thriftnio.testkit.conformance;
