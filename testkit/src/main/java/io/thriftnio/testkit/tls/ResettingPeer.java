package io.thriftnio.testkit.tls;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.apache.thrift.transport.TTransportException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * A loopback peer that accepts every connection and resets it at once (RST, no bytes): the quickest
 * way to close a client's channel while its connect or TLS handshake is still being set up. Closing
 * the peer stops it.
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

  /**
   * Connects {@code attempts} times and asserts that each attempt fails with a {@link
   * TTransportException} naming the address: the handshake's failure, or the connect's when the
   * reset beats the connect itself.
   *
   * @param attempts how many connects; the race with the reset is lost rarely, so a few hundred
   * @param connectFailure how the client under test starts a failed connect's message, before the
   *     address (transports word it differently)
   * @param connect one connect through the client under test
   */
  public void assertEveryConnectFailsClearly(
      int attempts, String connectFailure, ThrowingCallable connect) {
    InetSocketAddress address = address();
    for (int i = 0; i < attempts; i++) {
      assertThatThrownBy(connect)
          .as("attempt %d", i)
          .isInstanceOf(TTransportException.class)
          .message()
          .matches(
              m ->
                  m.startsWith("TLS handshake with " + address + " failed")
                      || m.startsWith(connectFailure + address),
              "names the handshake or the connect, and the address");
    }
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
