package io.thriftnio.it.bench;

/**
 * The outcome of one cell. Latencies are in microseconds. A skipped cell has {@link #skipped()} set
 * and zeros elsewhere.
 *
 * @param server the server row
 * @param client the client kind
 * @param size the workload label ({@code 300}, {@code 3k}, {@code sleep(500)})
 * @param protocol the protocol
 * @param connections connections, or the parallelism for pooled kinds
 * @param callsPerSec calls completed per second in the measured phase
 * @param calls calls completed in the measured phase
 * @param meanUs mean latency
 * @param p50Us median latency
 * @param p95Us 95th percentile latency
 * @param p99Us 99th percentile latency
 * @param p999Us 99.9th percentile latency
 * @param maxUs largest latency
 * @param errors failed calls, warm-up included
 * @param checkFailures replies that arrived but were not the expected bytes, warm-up included
 * @param connectionsOpened connections the client opened, or -1 if it cannot tell
 * @param seconds the measured phase's real length
 * @param skipped why the cell did not run, or {@code null}
 */
record CellResult(
    String server,
    String client,
    String size,
    String protocol,
    int connections,
    double callsPerSec,
    long calls,
    double meanUs,
    long p50Us,
    long p95Us,
    long p99Us,
    long p999Us,
    long maxUs,
    long errors,
    long checkFailures,
    long connectionsOpened,
    double seconds,
    String skipped) {

  static CellResult skipped(CellSpec cell, String reason) {
    return new CellResult(
        cell.server(),
        cell.client(),
        cell.workload().label(),
        cell.protocol(),
        cell.connections(),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        -1,
        0,
        reason);
  }

  boolean ran() {
    return skipped == null;
  }
}
