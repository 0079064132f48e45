package io.thriftnio.core;

import java.net.InetSocketAddress;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * The threads and buffers one transport's clients share (Netty's event loops, Grizzly's selector
 * threads), and the one way to open a client connection on that transport. Netty's and Grizzly's
 * implementations are opened the same way and fail the same way, so switching transports changes
 * the line that creates the resources and nothing else:
 *
 * <pre>{@code
 * try (ClientIo resources = NettyClientIo.create()) { // or GrizzlyClientIo
 *   TTransport transport = resources.openTransport(address, ClientOptions.defaults());
 *   BenchService.Client client = new BenchService.Client(new TBinaryProtocol(transport));
 *   ThriftChannel channel = resources.openChannel(address, ClientOptions.defaults());
 * }
 * }</pre>
 *
 * <p>Both methods return connected: a failed connect or TLS handshake throws a {@link
 * TTransportException} of type {@code NOT_OPEN} whose message names the address and the cause, the
 * same text on every transport. With {@link WireKind#SASL} they return once the SASL negotiation
 * has completed, on the calling thread (the sync transport is libthrift's {@code
 * TSaslClientTransport}); a failed one throws a {@link
 * io.thriftnio.core.sasl.SaslNegotiationException} naming the mechanism, the server and the reason.
 * Thread-safe. {@link #close()} is idempotent; it closes the connections still open and, where the
 * resources own their threads, stops them.
 */
public interface ClientIo extends AutoCloseable {

  /**
   * Opens a synchronous framed transport: writes are buffered until {@code flush()}, which sends
   * one frame; {@code read} blocks until the response frame arrives or {@link
   * ClientOptions#callTimeout()} passes. Any generated {@code Client} works on it. Over plain TCP
   * it is a blocking socket driven by the caller's thread on every transport (the cost of {@code
   * TSocket} + {@code TFramedTransport}, no thread handoff); over TLS the transport's own engine
   * runs on its IO threads. With {@link ClientOptions#wireKind()} {@link WireKind#UNFRAMED} the
   * message goes out without the length prefix and each reply's end is found by walking it.
   *
   * @param address the server
   * @param options the connection's settings
   * @return an open transport
   * @throws TTransportException {@code NOT_OPEN} if the connect or the TLS handshake fails or the
   *     resources are closed
   */
  TTransport openTransport(InetSocketAddress address, ClientOptions options)
      throws TTransportException;

  /**
   * Opens a pipelined channel: many calls in flight, responses matched first in, first out; framed,
   * or unframed as {@link ClientOptions#wireKind()} says.
   *
   * @param address the server
   * @param options the connection's settings
   * @return an open channel
   * @throws TTransportException {@code NOT_OPEN} if the connect or the TLS handshake fails or the
   *     resources are closed
   */
  ThriftChannel openChannel(InetSocketAddress address, ClientOptions options)
      throws TTransportException;

  /**
   * {@link #openTransport(InetSocketAddress, ClientOptions)} with {@link ClientOptions#defaults()}.
   */
  default TTransport openTransport(InetSocketAddress address) throws TTransportException {
    return openTransport(address, ClientOptions.defaults());
  }

  /**
   * {@link #openChannel(InetSocketAddress, ClientOptions)} with {@link ClientOptions#defaults()}.
   */
  default ThriftChannel openChannel(InetSocketAddress address) throws TTransportException {
    return openChannel(address, ClientOptions.defaults());
  }

  /** Closes the connections still open and stops the threads these resources own. Idempotent. */
  @Override
  void close();
}
