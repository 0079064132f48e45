package io.thriftnio.testkit.conformance;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;

/**
 * A socket peer for the client suites: each connection is served as its mode (or its service) says.
 */
final class StubPeer implements AutoCloseable {
  enum Mode {
    SILENT,
    OVERSIZE,
    NOT_READING,
    /** Answers the first request, then sends frames nobody asked for. */
    FLOODING
  }

  static final int OVERSIZE = 2000;

  final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  final InetSocketAddress address = (InetSocketAddress) server.getLocalSocketAddress();
  final List<Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();

  StubPeer(Mode mode) throws IOException {
    this(
        "client-contract-peer",
        s -> {
          if (mode != Mode.NOT_READING) {
            serve(s, mode);
          } // else holds the connection and never reads: the client's writes pile up
        });
  }

  /** How a peer serves one accepted connection, on a thread of its own. */
  @FunctionalInterface
  interface Service {
    void serve(Socket socket);
  }

  /**
   * A peer that serves each connection with {@code service}, on a daemon thread named {@code name}.
   */
  StubPeer(String name, Service service) throws IOException {
    Thread acceptor =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket s = server.accept();
                  accepted.add(s);
                  Thread t = new Thread(() -> service.serve(s), name);
                  t.setDaemon(true);
                  t.start();
                } catch (IOException closed) {
                  return; // the test is over
                }
              }
            },
            name + "-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private static void serve(Socket s, Mode mode) {
    try {
      DataInputStream in = new DataInputStream(s.getInputStream());
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      while (true) {
        int length = in.readInt();
        in.skipNBytes(length);
        if (mode == Mode.OVERSIZE) {
          out.writeInt(OVERSIZE);
          out.write(new byte[OVERSIZE]);
          out.flush();
        } else if (mode == Mode.FLOODING) {
          for (int i = 0; i < 100; i++) { // one answer, then noise
            out.writeInt(8);
            out.writeLong(i);
          }
          out.flush();
        }
      }
    } catch (IOException ended) {
      // the client closed the connection, or the test ended
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : accepted) {
      s.close();
    }
  }
}
