package io.thriftnio.core;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous exchange of Thrift messages over one connection, framed as Thrift's {@code
 * TFramedTransport} frames them (a 4-byte big-endian length, then the message).
 *
 * <p>Many calls may be in flight at once (pipelining). Thrift peers answer a connection's requests
 * in order, so responses are matched to requests first-in, first-out. A oneway message gets no
 * response: {@link #send(ByteBuffer)} completes once it is written.
 *
 * <p>Failures complete the future exceptionally, never throw. When the connection closes, every
 * pending call fails with a {@link org.apache.thrift.transport.TTransportException} that names the
 * peer and the number of calls pending.
 *
 * <p><b>A timed-out call fails alone.</b> A call that outlives its timeout fails with a {@code
 * TTransportException} of type {@code TIMED_OUT} naming the method, the peer and the timeout;
 * nothing else happens to the connection or to the other calls on it, which wait within their own
 * timeouts. Its request keeps its place in the reply order ({@link #abandonedCalls()}), and the
 * reply that comes for it later is dropped after a check of its sequence id (a mismatch means the
 * order is broken: the connection closes). Calls queued behind a slow one on the same connection
 * wait for it, since replies come in order (head-of-line blocking): their timeouts say so (the
 * message: {@code behind an earlier call that had timed out}) and the pools send new calls to other
 * connections meanwhile. The connection closes as stuck only when no reply at all arrives for
 * {@code lateReplyTimeout} (default 10 s) while one is owed; see {@link
 * ClientOptions.Builder#lateReplyTimeout}.
 *
 * <p>The Netty and Grizzly channels bound the calls waiting for responses on one connection ({@code
 * maxCallsInFlightPerConnection}, default {@value #DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION};
 * oneway messages count until written): a call beyond it fails at once with a {@code
 * TTransportException} that gives the calls pending and the limit and ends {@code call not sent}:
 * nothing is sent, and the channel stays usable. A call on a closed channel fails with one of type
 * {@code NOT_OPEN}, nothing sent; a request above {@code maxFrameSize} with one of type {@code
 * CORRUPTED_DATA} that ends {@code not sent}.
 *
 * <p>Implementations are thread-safe. {@link #close()} is idempotent.
 */
public interface ThriftChannel extends AutoCloseable {

  /**
   * Default limit of calls waiting for responses on one channel: {@value}. Far above the pools'
   * default of 32 calls in flight per connection and any useful pipelining depth (a connection is
   * one TCP stream: past a few hundred calls in flight, latency grows and throughput does not), low
   * enough that a caller outrunning a stalled server fails fast instead of piling up requests.
   */
  int DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION = 1024;

  /**
   * Sends one request and completes with its response, within the channel's default timeout.
   *
   * @param request one Thrift message (no length prefix), from position to limit; the channel adds
   *     the prefix and must not see the buffer changed until the returned future completes
   * @return the response message (no length prefix)
   */
  CompletableFuture<ByteBuffer> exchange(ByteBuffer request);

  /**
   * Sends one request and completes with its response within {@code timeout}.
   *
   * @param request see {@link #exchange(ByteBuffer)}
   * @param timeout time allowed from the call until the whole response has arrived; must be
   *     positive
   * @return the response message (no length prefix)
   */
  CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout);

  /**
   * Sends a oneway message.
   *
   * @param request one Thrift message of type {@code ONEWAY} (no length prefix)
   * @return completes once the message is written to the socket
   */
  CompletableFuture<Void> send(ByteBuffer request);

  /** Calls sent whose responses have not arrived, {@link #abandonedCalls()} included. */
  int callsInFlight();

  /**
   * Calls that timed out after they were sent and whose late replies have not arrived yet: the
   * connection owes them, so a call sent now would wait behind them. Pools send new calls to
   * another connection while this is above zero. The default, for channels that close on a timeout
   * instead, is 0.
   */
  default int abandonedCalls() {
    return 0;
  }

  /** Whether the connection is open. */
  boolean isOpen();

  /** The peer's address. */
  SocketAddress remoteAddress();

  /**
   * Runs {@code action} once when the connection closes, however it closes ({@link #close()}, the
   * peer closing or resetting it, a timeout, a bad frame), on the thread that saw the close; at
   * once on the calling thread if it is closed already. Pools use it to drop a closed connection at
   * once instead of at its next use.
   *
   * <p>The default does nothing: a channel that cannot tell is found closed when next used ({@link
   * #isOpen()}). The Netty and Grizzly channels of this library run it.
   *
   * @param action must neither block nor throw
   */
  default void whenClosed(Runnable action) {}

  /** Closes the connection; pending calls fail. Idempotent. */
  @Override
  void close();
}
