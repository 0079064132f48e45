package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;

/**
 * One server row of the matrix, e.g. {@code netty/worker}, {@code thrift-hsha}, {@code raw-echo}.
 */
interface ServerRow {

  /** The row's name as {@code serve --server} and {@code matrix --servers} spell it. */
  String name();

  /**
   * Whether the row echoes frames without Thrift decoding; clients then send prepared request
   * frames and compare the echo byte for byte.
   */
  default boolean rawEcho() {
    return false;
  }

  /**
   * Whether the row serves TLS; its cells' clients then speak TLS, trusting the CA of the run's
   * {@link BenchTls}.
   */
  default boolean tls() {
    return false;
  }

  /**
   * The RPC stack the row speaks: {@value #THRIFT} for every Thrift row (ours, stock, peers that
   * speak Thrift), or another stack's name, e.g. {@code grpc}. A client kind calls only rows of its
   * own stack ({@link ClientKindRow#mismatch}); in {@code efficiency}, a row of another stack runs
   * the scenarios' shapes with the client kind named after its stack ({@link
   * EfficiencyScenario#on}).
   */
  default String stack() {
    return THRIFT;
  }

  /** The stack of every Thrift row and client kind. */
  String THRIFT = "thrift";

  /** Whether the row is part of {@code all} and of family names like {@code netty}. */
  default boolean listed() {
    return true;
  }

  /**
   * The {@code java} that runs the row's {@code serve} child in {@code efficiency}: this JVM's by
   * default; a JDK &gt;= 21's for a peer whose classes need it.
   *
   * @throws IOException if no JVM here can run the row; the message is its cells' skip reason
   */
  default String childJava() throws IOException {
    return ServeProcess.javaCommand();
  }

  /**
   * What the row can serve on its port. Default: {@code FRAMED} alone; the library's rows serve
   * every {@link WireKind}, {@code thrift-servlet} {@code HTTP} alone.
   */
  default Set<WireKind> wireKinds() {
    return EnumSet.of(WireKind.FRAMED);
  }

  /**
   * The client kind that drives this row open-loop ({@code efficiency --rates}, {@code --at-load};
   * {@link OpenLoop}): a kind whose lanes are {@link ClientLoad.AsyncLane}s. Default: {@code
   * netty-async} (the pipelined {@link io.thriftnio.core.ThriftChannel}) over the first wire kind
   * the row serves, framed where it does. A peer row whose clients speak another protocol names its
   * own kind here.
   */
  default String openLoopClient() {
    Set<WireKind> served = wireKinds();
    WireKind wire = served.contains(WireKind.FRAMED) ? WireKind.FRAMED : served.iterator().next();
    return ClientKindRow.named("netty-async", wire);
  }

  /**
   * Why this row cannot serve {@code cell}, or {@code null} if it can.
   *
   * @param cell the cell about to run
   */
  default String cannotServe(CellSpec cell) {
    return null;
  }

  /**
   * Starts the row.
   *
   * @param spec address, protocol, threads
   * @return the running server
   * @throws Exception if it cannot start; the message is the skip reason of its cells
   */
  RunningServer start(ServerSpec spec) throws Exception;
}
