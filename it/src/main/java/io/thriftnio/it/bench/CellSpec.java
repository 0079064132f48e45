package io.thriftnio.it.bench;

import io.thriftnio.core.tls.ClientTls;
import java.time.Duration;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * One cell of the matrix: a client kind calling a server row.
 *
 * @param server the server row's name
 * @param client the client kind's name
 * @param workload what each call does
 * @param protocol the protocol name
 * @param connections connections for per-connection kinds; concurrent callers (the parallelism) for
 *     pooled kinds and {@code per-call-connection}
 * @param inFlight calls kept in flight per connection by the async connection kinds
 * @param poolSize the pool's connection limit, or 0 for the kind's default
 * @param raw whether the server echoes frames (no Thrift decoding): send prepared frames and
 *     compare the echo
 * @param warmup load before measuring
 * @param duration measured load
 * @param maxCalls a bound on calls in the measured phase, or 0 for none (time bounds the cell)
 * @param callTimeout the longest one call may take before it counts as an error
 * @param tls what the clients speak TLS with (a TLS row's cells), or {@code null} for plain TCP
 */
record CellSpec(
    String server,
    String client,
    Workload workload,
    String protocol,
    int connections,
    int inFlight,
    int poolSize,
    boolean raw,
    Duration warmup,
    Duration duration,
    long maxCalls,
    Duration callTimeout,
    ClientTls tls) {

  /** A plain-TCP cell. */
  CellSpec(
      String server,
      String client,
      Workload workload,
      String protocol,
      int connections,
      int inFlight,
      int poolSize,
      boolean raw,
      Duration warmup,
      Duration duration,
      long maxCalls,
      Duration callTimeout) {
    this(
        server,
        client,
        workload,
        protocol,
        connections,
        inFlight,
        poolSize,
        raw,
        warmup,
        duration,
        maxCalls,
        callTimeout,
        null);
  }

  /** This cell over TLS with {@code tls}, or plain with {@code null}. */
  CellSpec withTls(ClientTls tls) {
    return new CellSpec(
        server,
        client,
        workload,
        protocol,
        connections,
        inFlight,
        poolSize,
        raw,
        warmup,
        duration,
        maxCalls,
        callTimeout,
        tls);
  }

  TProtocolFactory protocolFactory() {
    return Protocols.factory(protocol);
  }

  /** A short label for progress lines: {@code netty/worker tsocket 300 compact x40}. */
  String label() {
    return server + " " + client + " " + workload.label() + " " + protocol + " x" + connections;
  }
}
