/**
 * The bench CLI ({@code thrift-nio-bench.jar}): {@code serve} starts one server row, {@code matrix}
 * measures servers x clients x sizes x protocols x connection counts and writes the reports.
 *
 * <p>Server rows and client kinds are plugged into a {@link io.thriftnio.it.bench.Rows} registry by
 * name. The rows that need only core, testkit and libthrift live in {@code StockRows}; the Netty,
 * Grizzly and pool rows each live in one provider class that the registry loads by name, so that a
 * build without one of them still runs and says why those rows are missing.
 */
package io.thriftnio.it.bench;
