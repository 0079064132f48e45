package io.thriftnio.testkit.tls;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A loopback peer that accepts every connection and resets it at once (RST, no bytes): the
 * quickest way to close a client's channel while its connect or TLS handshake is still being set
 * up. Closing the peer stops it.
 */
public final class ResettingPeer implements AutoCloseable {

  private final ServerSocket listener;
  private final Thread acceptor;

  private ResettingPeer(ServerSocket listener) {
    this.listener = listener;
    this.acceptor = new Thread(this::resetAll, "resetting-peer");
    this.acceptor.setDaemon(true);
  }

  /** Starts a peer on a loopback port chosen by the system. */
  public static ResettingPeer start() throws IOException {
    ResettingPeer peer =
        new ResettingPeer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    peer.acceptor.start();
    return peer;
  }

  /** The address to connect to. */
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.getLocalSocketAddress();
  }

  private void resetAll() {
    while (!listener.isClosed()) {
      try (Socket s = listener.accept()) {
        s.setSoLinger(true, 0); // the close below sends RST
      } catch (IOException closed) {
        return; // close() closed the listener
      }
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
