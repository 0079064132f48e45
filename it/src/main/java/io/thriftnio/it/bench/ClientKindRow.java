package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.util.Locale;

/** One client kind of the matrix: {@code tsocket}, {@code netty-async}, {@code pooled-sync}... */
interface ClientKindRow {

  /** The kind's name as {@code matrix --clients} spells it. */
  String name();

  /**
   * The RPC stack the kind speaks: {@link ServerRow#THRIFT} by default; it calls rows of that stack
   * only.
   */
  default String stack() {
    return ServerRow.THRIFT;
  }

  /** Whether the kind is part of {@code all}. */
  default boolean listed() {
    return true;
  }

  /**
   * What the kind speaks: {@code FRAMED} by default, {@code HTTP} for {@code thttpclient} and the
   * {@code -http} kinds. A cell whose server row does not serve it is skipped with {@link
   * #mismatch}'s reason, and in-process library rows are started accepting it beside {@code
   * FRAMED}.
   */
  default WireKind wireKind() {
    return WireKind.FRAMED;
  }

  /**
   * A library kind's name: {@code base} for {@link WireKind#FRAMED}, else {@code base-} and the
   * transport, e.g. {@code netty-sync-http}.
   *
   * @param base the framed kind's name, e.g. {@code netty-sync}
   * @param transport what the kind speaks
   */
  static String named(String base, WireKind transport) {
    return transport == WireKind.FRAMED
        ? base
        : base + "-" + transport.name().toLowerCase(Locale.ROOT);
  }

  /**
   * Why {@code row} cannot serve {@code kind}: they speak different RPC stacks, or their transports
   * differ; or {@code null}.
   *
   * @param row the server row
   * @param kind the client kind
   */
  static String mismatch(ServerRow row, ClientKindRow kind) {
    if (!row.stack().equals(kind.stack())) {
      return row.name()
          + " speaks "
          + row.stack()
          + "; "
          + kind.name()
          + " calls "
          + kind.stack()
          + " rows only";
    }
    if (row.wireKinds().contains(kind.wireKind())) {
      return null;
    }
    return row.name()
        + " serves "
        + row.wireKinds().toString().toLowerCase(Locale.ROOT)
        + " peers only; "
        + kind.name()
        + " speaks "
        + kind.wireKind().name().toLowerCase(Locale.ROOT);
  }

  /**
   * Why this kind cannot run {@code cell}, or {@code null} if it can.
   *
   * @param cell the cell about to run
   */
  default String cannotRun(CellSpec cell) {
    return null;
  }

  /**
   * Opens the connections (or pool) of one cell.
   *
   * @param cell what to call and how many connections
   * @param address the server
   * @return the lanes to drive; the caller closes it
   * @throws Exception if it cannot connect
   */
  ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception;
}
