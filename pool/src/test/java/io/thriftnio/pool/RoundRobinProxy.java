package io.thriftnio.pool;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1, port 0, that sends each connection it accepts to the next of its
 * backends in turn, as a Kubernetes Service's kube-proxy balances connections (not calls). Bytes
 * are copied both ways; when either side closes, both do.
 */
final class RoundRobinProxy implements AutoCloseable {
  private final ServerSocket server;
  private final List<InetSocketAddress> backends = new CopyOnWriteArrayList<>();
  private final AtomicInteger next = new AtomicInteger();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  RoundRobinProxy(List<InetSocketAddress> backends) throws IOException {
    this.backends.addAll(backends);
    this.server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "proxy-accept-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", server.getLocalPort());
  }

  /** A new backend, in turn for the connections accepted from now on. */
  void add(InetSocketAddress backend) {
    backends.add(backend);
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      List<InetSocketAddress> now = List.copyOf(backends);
      InetSocketAddress to = now.get(Math.floorMod(next.getAndIncrement(), now.size()));
      try {
        Socket backend = new Socket(to.getAddress(), to.getPort());
        client.setTcpNoDelay(true);
        backend.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(backend);
        pipe(client, backend);
        pipe(backend, client);
      } catch (IOException e) {
        closeQuietly(client); // the backend refused: the client sees its connection close
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // One side closed or reset: the pair is done either way, closed below.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private void closeQuietly(Socket s) {
    sockets.remove(s);
    try {
      s.close();
    } catch (IOException e) {
      // Closing a socket of a pair that is done: nothing left to lose.
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }
}
