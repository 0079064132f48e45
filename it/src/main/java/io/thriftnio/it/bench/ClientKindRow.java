package io.thriftnio.it.bench;

import java.net.InetSocketAddress;

/** One client kind of the matrix: {@code tsocket}, {@code netty-async}, {@code pooled-sync}... */
interface ClientKindRow {

  /** The kind's name as {@code matrix --clients} spells it. */
  String name();

  /** Whether the kind is part of {@code all}. */
  default boolean listed() {
    return true;
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
