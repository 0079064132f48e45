package io.thriftnio.pool;

/** What a call got: a connection with a slot taken, or the right to open one. */
final class Grant {
  final Conn conn; // null: the caller connects, a reservation held
  final boolean fresh; // the connection carried no call: check it before use if asked

  Grant(Conn conn, boolean fresh) {
    this.conn = conn;
    this.fresh = fresh;
  }
}
