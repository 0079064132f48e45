package io.thriftnio.it.bench;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * How to start one server row. The IO strategy is part of the row ({@code netty/worker}).
 *
 * @param host the address to bind
 * @param port the port to bind; 0 picks a free one
 * @param protocol the protocol name ({@code binary}, {@code compact}, {@code json})
 * @param workers worker threads, or {@code null} for the row's default
 * @param ioThreads IO (selector) threads, or {@code null} for the row's default
 * @param asyncHandler serve {@code AsyncBenchHandler} through an async processor where the row can
 * @param expectedConnections the most connections a run will open at once; thread-per-connection
 *     rows size their pool from it
 * @param tls the certificates TLS rows serve with, or {@code null} when none were made (a TLS row
 *     then fails to start and says so)
 * @param accessLog library rows print one line per call on stderr ({@code serve --access-log})
 * @param wireKinds what the row accepts on its port ({@code serve --transports}); only library rows
 *     accept more than {@code FRAMED}, and {@code thrift-servlet} accepts {@code HTTP} alone
 * @param httpPath the path HTTP peers post to ({@code serve --http-path}, default {@code /})
 * @param handler the sync handler to serve ({@code serve --handler}), or {@code null} for a plain
 *     {@link BenchHandler}
 * @param serverOptions settings of the library's server builder ({@code serve --server-option},
 *     {@link ServerOptions}); empty for none, and other rows refuse any
 */
record ServerSpec(
    String host,
    int port,
    String protocol,
    Integer workers,
    Integer ioThreads,
    boolean asyncHandler,
    int expectedConnections,
    BenchTls tls,
    boolean accessLog,
    Set<WireKind> wireKinds,
    String httpPath,
    BenchHandler handler,
    Map<String, String> serverOptions) {

  ServerSpec {
    serverOptions = serverOptions == null ? Map.of() : Map.copyOf(serverOptions);
  }

  /** A spec serving a plain {@link BenchHandler}, with no server options. */
  ServerSpec(
      String host,
      int port,
      String protocol,
      Integer workers,
      Integer ioThreads,
      boolean asyncHandler,
      int expectedConnections,
      BenchTls tls,
      boolean accessLog,
      Set<WireKind> wireKinds,
      String httpPath) {
    this(
        host,
        port,
        protocol,
        workers,
        ioThreads,
        asyncHandler,
        expectedConnections,
        tls,
        accessLog,
        wireKinds,
        httpPath,
        null,
        Map.of());
  }

  /** The sync handler to serve: {@link #handler()}, else a fresh {@link BenchHandler}. */
  BenchHandler syncHandler() {
    return handler != null ? handler : new BenchHandler();
  }

  /**
   * Refuses server options on a row that is not one of this library's.
   *
   * @param row the row's name, for the message
   * @throws IllegalStateException if {@link #serverOptions()} is not empty
   */
  void requireNoServerOptions(String row) {
    if (!serverOptions.isEmpty()) {
      throw new IllegalStateException(
          row
              + " takes no server options: "
              + serverOptions
              + " (expected: none; --server-option sets the netty and grizzly rows' builder)");
    }
  }

  /** A spec whose HTTP peers, if any, post to {@code /}. */
  ServerSpec(
      String host,
      int port,
      String protocol,
      Integer workers,
      Integer ioThreads,
      boolean asyncHandler,
      int expectedConnections,
      BenchTls tls,
      boolean accessLog,
      Set<WireKind> wireKinds) {
    this(
        host,
        port,
        protocol,
        workers,
        ioThreads,
        asyncHandler,
        expectedConnections,
        tls,
        accessLog,
        wireKinds,
        ServerBuilder.DEFAULT_HTTP_PATH);
  }

  /** A spec for framed peers alone. */
  ServerSpec(
      String host,
      int port,
      String protocol,
      Integer workers,
      Integer ioThreads,
      boolean asyncHandler,
      int expectedConnections,
      BenchTls tls,
      boolean accessLog) {
    this(
        host,
        port,
        protocol,
        workers,
        ioThreads,
        asyncHandler,
        expectedConnections,
        tls,
        accessLog,
        EnumSet.of(WireKind.FRAMED));
  }

  /**
   * Refuses a spec that asks a row serving framed peers alone for more.
   *
   * @param row the row's name, for the message
   * @throws IllegalStateException if {@link #wireKinds()} holds more than {@code FRAMED}
   */
  void requireFramedOnly(String row) {
    if (!wireKinds.equals(EnumSet.of(WireKind.FRAMED))) {
      throw new IllegalStateException(
          row
              + " serves framed peers only: transports "
              + wireKinds
              + " (expected: framed; the netty and grizzly rows take unframed, http, header and sasl too)");
    }
  }

  /** A spec without an access log. */
  ServerSpec(
      String host,
      int port,
      String protocol,
      Integer workers,
      Integer ioThreads,
      boolean asyncHandler,
      int expectedConnections,
      BenchTls tls) {
    this(host, port, protocol, workers, ioThreads, asyncHandler, expectedConnections, tls, false);
  }

  /** A spec without TLS certificates. */
  ServerSpec(
      String host,
      int port,
      String protocol,
      Integer workers,
      Integer ioThreads,
      boolean asyncHandler,
      int expectedConnections) {
    this(host, port, protocol, workers, ioThreads, asyncHandler, expectedConnections, null);
  }

  TProtocolFactory protocolFactory() {
    return Protocols.factory(protocol);
  }

  int workersOr(int fallback) {
    return workers != null ? workers : fallback;
  }

  int ioThreadsOr(int fallback) {
    return ioThreads != null ? ioThreads : fallback;
  }
}
