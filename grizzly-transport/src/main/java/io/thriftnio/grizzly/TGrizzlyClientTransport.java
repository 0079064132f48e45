package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Connection;

/**
 * A blocking, framed Thrift client transport over one Grizzly connection whose chain ends with
 * {@code ThriftFrameFilter -> ThriftClientFilter}: any generated {@code Client} works on it, like
 * on {@code TFramedTransport(TSocket)}. The framing, limits, protocol checks and errors are core's,
 * the same as on every transport of this library.
 *
 * <pre>
 *  write(...) write(...)      buffered until flush()
 *  flush()                    sends one frame:  | length | payload |, waits until it is written
 *  read(...)                  blocks until the response frame has arrived (callTimeout)
 * </pre>
 *
 * <p>{@link GrizzlyClientIo#openTransport} uses the same transport for TLS, where Grizzly's {@code
 * SSLFilter} runs on the selector thread; plain TCP there is core's blocking socket transport. On a
 * filter chain of your own, wrap a connected {@link Connection} with {@link #create(Connection)}:
 *
 * <pre>{@code
 * Connection<?> connection = transport.connect(address).get(10, TimeUnit.SECONDS);
 * TTransport thrift = TGrizzlyClientTransport.create(connection);   // open already
 * BenchService.Client client = new BenchService.Client(new TBinaryProtocol(thrift));
 * }</pre>
 *
 * <p>Failures close the transport for good, since its stream may hold half a message; once closed,
 * {@link #open()} and every read fail with {@code NOT_OPEN}. Not thread-safe, like every Thrift
 * transport: one call at a time.
 *
 * <p>It delegates every method to the library's transport (a {@code TEndpointTransport}): reads see
 * the frame's bytes in place ({@link #getBuffer()}), and the configuration and message-size budget
 * are that transport's.
 */
public final class TGrizzlyClientTransport extends TEndpointTransport {

  // Held, not extended: the public class has no internal superclass.
  private final GrizzlyFramedTransport transport;

  private TGrizzlyClientTransport(GrizzlyFramedTransport transport) throws TTransportException {
    super(transport.getConfiguration());
    this.transport = transport;
  }

  /**
   * A transport over a connected {@code connection} with {@link ClientOptions#defaults()}.
   *
   * @param connection connected; its chain ends with {@code ThriftFrameFilter ->
   *     ThriftClientFilter}
   * @return the transport, open
   */
  public static TGrizzlyClientTransport create(Connection<?> connection) {
    return create(connection, ClientOptions.defaults());
  }

  /**
   * A transport over a connected {@code connection}; of the options, {@code maxFrameSize} (for
   * requests and libthrift's size checks; the chain's {@code ThriftFrameFilter} bounds framed
   * responses), {@code callTimeout} and {@code wireKind} apply. With {@code WireKind.UNFRAMED}, the
   * chain's frame filter reads this connection's replies unframed, bounded by the options' {@code
   * maxFrameSize}.
   *
   * @param connection connected; its chain ends with {@code ThriftFrameFilter ->
   *     ThriftClientFilter}
   * @param options the settings
   * @return the transport, open
   */
  public static TGrizzlyClientTransport create(Connection<?> connection, ClientOptions options) {
    Checks.notNull("connection", connection);
    Checks.notNull("options", options);
    SocketAddress peer = Addresses.peer(connection);
    InetSocketAddress address =
        peer instanceof InetSocketAddress a
            ? a
            : InetSocketAddress.createUnresolved(String.valueOf(peer), 0);
    try {
      return new TGrizzlyClientTransport(
          new GrizzlyFramedTransport(address, connection, options, () -> {}));
    } catch (TTransportException e) {
      throw new IllegalStateException(e); // TEndpointTransport declares it; never thrown
    }
  }

  /** The transport this one delegates to: the chain's sink of its replies. */
  GrizzlyFramedTransport delegate() {
    return transport;
  }

  /** The server's address, as the connection knows it. */
  public InetSocketAddress remoteAddress() {
    return transport.remoteAddress();
  }

  @Override
  public boolean isOpen() {
    return transport.isOpen();
  }

  @Override
  public void open() throws TTransportException {
    transport.open();
  }

  @Override
  public void close() {
    transport.close();
  }

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    return transport.read(buf, off, len);
  }

  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    transport.write(buf, off, len);
  }

  @Override
  public void flush() throws TTransportException {
    transport.flush();
  }

  @Override
  public byte[] getBuffer() {
    return transport.getBuffer();
  }

  @Override
  public int getBufferPosition() {
    return transport.getBufferPosition();
  }

  @Override
  public int getBytesRemainingInBuffer() {
    return transport.getBytesRemainingInBuffer();
  }

  @Override
  public void consumeBuffer(int len) {
    transport.consumeBuffer(len);
  }

  @Override
  public TConfiguration getConfiguration() {
    // TEndpointTransport's constructor asks before the field is set: the same configuration.
    return transport == null ? super.getConfiguration() : transport.getConfiguration();
  }

  @Override
  public void updateKnownMessageSize(long size) throws TTransportException {
    transport.updateKnownMessageSize(size);
  }

  @Override
  public void checkReadBytesAvailable(long numBytes) throws TTransportException {
    transport.checkReadBytesAvailable(numBytes);
  }

  /**
   * Runs {@code action} once when the connection closes, however it closes (the peer's close or
   * reset is seen on Grizzly's IO thread), on the thread that saw the close; at once on the calling
   * thread if it is closed already.
   *
   * @param action must neither block nor throw
   */
  public void whenClosed(Runnable action) {
    transport.whenClosed(action);
  }

  @Override
  public String toString() {
    return transport.toString();
  }
}
