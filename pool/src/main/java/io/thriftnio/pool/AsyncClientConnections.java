package io.thriftnio.pool;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.client.AsyncClientSocket;
import io.thriftnio.core.internal.client.ClientInterception;
import io.thriftnio.core.internal.client.FramedNonblockingSocket;
import io.thriftnio.core.internal.client.InterceptedConnection;
import io.thriftnio.core.internal.client.SaslSocketTransport;
import io.thriftnio.core.internal.client.THeaderNonblockingSocket;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.ReplyChecks;
import io.thriftnio.pool.ThriftAsyncClientPool.AsyncClientFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.thrift.TException;
import org.apache.thrift.async.TAsyncClient;
import org.apache.thrift.async.TAsyncClientManager;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolDecorator;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.scheme.StandardScheme;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TNonblockingSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * Opens generated {@code AsyncClient}s over {@code TNonblockingSocket}s (framed), or over {@link
 * THeaderNonblockingSocket}s for {@link WireKind#HEADER} options, spread round-robin over several
 * {@code TAsyncClientManager}s (one selector thread each), and stops those threads on {@link
 * #close()}.
 */
final class AsyncClientConnections<A extends TAsyncClient>
    implements EndpointPool.Connections<AsyncConnection<A>>, AutoCloseable {
  private final AsyncClientFactory<A> factory;
  private final TProtocolFactory protocolFactory;
  private final ClientOptions options;
  private final ClientSasl sasl; // null: no negotiation
  private final int maxFrameSize;
  private final int connectMillis;
  private final long callMillis;
  private final Predicate<? super A> validator;
  private final ClientInterception interception;
  private final TAsyncClientManager[] managers;
  private final AtomicInteger next = new AtomicInteger();

  /**
   * Starts {@code selectorThreads} selector threads.
   *
   * @throws IllegalStateException if a selector cannot be opened
   */
  public AsyncClientConnections(
      AsyncClientFactory<A> factory,
      TProtocolFactory protocolFactory,
      ClientOptions options,
      Predicate<? super A> validator,
      ClientInterception interception,
      int selectorThreads) {
    this.factory = factory;
    this.protocolFactory = protocolFactory;
    this.options = options;
    this.connectMillis = (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis());
    this.callMillis = options.callTimeout().toMillis();
    this.sasl = options.sasl().orElse(null);
    this.maxFrameSize = options.maxFrameSize();
    this.validator = validator;
    this.interception = interception;
    this.managers = new TAsyncClientManager[selectorThreads];
    try {
      for (int i = 0; i < managers.length; i++) {
        managers[i] = new TAsyncClientManager();
      }
    } catch (IOException e) {
      close();
      throw new IllegalStateException("cannot open a selector: " + e, e);
    }
  }

  /**
   * SASL settings a stock {@code TAsyncClient} can follow: {@code auth} alone, since it sends plain
   * frames after the negotiation.
   *
   * @throws IllegalStateException for a quality of protection that wraps, naming the pool that
   *     wraps
   */
  static void checkSasl(ClientSasl sasl) {
    if (!sasl.qop().equals(List.of(SaslQop.AUTH))) {
      throw new SettingException(
          "options.sasl qop",
          sasl.qop(),
          "[AUTH] only: a stock TAsyncClient sends its frames unwrapped; use ThriftChannelPool"
              + " for auth-int and auth-conf");
    }
  }

  /** The client's class, from a client over an unconnected socket; {@code null} if unknown. */
  public static Class<?> sampleClientClass(
      AsyncClientFactory<?> factory, TProtocolFactory protocolFactory) {
    try {
      // Unconnected: the constructor only opens a channel, and the client never starts a call.
      TNonblockingSocket socket = new TNonblockingSocket("127.0.0.1", 1);
      try {
        return factory.create(protocolFactory, null, socket).getClass();
      } finally {
        socket.close();
      }
    } catch (IOException | TTransportException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public AsyncConnection<A> open(InetSocketAddress endpoint) throws Exception {
    SocketChannel channel = SocketTransports.connect(endpoint, connectMillis);
    if (sasl != null) {
      // Blocking, on the pool's connecting thread, before the stock socket takes the channel.
      SaslSocketTransport.negotiateUnwrapped(channel.socket(), sasl, endpoint, maxFrameSize);
    }
    try {
      THeaderNonblockingSocket header =
          options.wireKind() == WireKind.HEADER
              ? new THeaderNonblockingSocket(channel, options, endpoint)
              : null;
      TNonblockingSocket socket =
          header != null ? header : new FramedNonblockingSocket(channel, options, endpoint);
      TAsyncClientManager manager =
          managers[Math.floorMod(next.getAndIncrement(), managers.length)];
      // The stock client encodes on the caller's thread and decodes on its selector thread, each
      // through a protocol of this factory: with interceptors, both pass through them.
      InterceptedConnection calls =
          interception == null
              ? null
              : new InterceptedConnection(
                  interception, endpoint, header, options.argumentHeaders());
      TProtocolFactory checked = checking(protocolFactory, endpoint, socket);
      TProtocolFactory protocols = calls == null ? checked : calls.wrap(checked);
      Supplier<A> clients =
          () -> {
            A client = factory.create(protocols, manager, socket);
            client.setTimeout(callMillis);
            return client;
          };
      return new AsyncConnection<>(endpoint, socket, clients, calls);
    } catch (IOException | RuntimeException | Error e) {
      SocketTransports.closeQuietly(channel);
      throw e;
    }
  }

  /**
   * Protocols of {@code protocols} that give each call on the connection its own sequence id on the
   * wire and check each reply header against the call it answers ({@link CallSequence}, then {@link
   * ReplyChecks.CheckingProtocol} for the method and message type), and bound the sizes a reply
   * declares by its frame: the stock async client decodes each reply from an in-memory transport
   * whose size budget is otherwise libthrift's default {@code maxMessageSize}, not the frame's
   * length. A protocol no decorator can stand in for (a tuple protocol) is left as it is.
   *
   * <p>Called once per connection: the protocols it makes share that connection's sequence.
   */
  private static TProtocolFactory checking(
      TProtocolFactory protocols, InetSocketAddress endpoint, TNonblockingSocket socket) {
    Supplier<String> method = socket instanceof AsyncClientSocket s ? s::lastMethod : () -> null;
    CallSequence sequence = new CallSequence(endpoint);
    return transport -> {
      if (transport instanceof TMemoryInputTransport reply) {
        try {
          reply.updateKnownMessageSize(reply.getBytesRemainingInBuffer());
        } catch (TTransportException e) {
          throw new IllegalStateException(e); // a frame over maxMessageSize, read already
        }
      }
      TProtocol protocol = protocols.getProtocol(transport);
      return protocol.getScheme() == StandardScheme.class
          ? new ReplyChecks.CheckingProtocol(sequence.over(protocol), endpoint, method)
          : protocol;
    };
  }

  /**
   * The sequence ids of one connection's calls. The stock async client writes seqid 0 on every call
   * and checks its reply for 0, so a reply meant for an earlier call (a server's duplicate still
   * unread when the connection went back to the pool) would answer the next one. Each request
   * written through {@link #over} carries the connection's next id instead; a reply must carry the
   * id of the call it answers, or the call fails with {@code BAD_SEQUENCE_ID} naming the endpoint
   * (and the pool does not keep the connection: {@link Failures#keepsConnection}); a reply that
   * does is handed to the client with the id the client wrote.
   *
   * <p>One call at a time is in flight on a connection (a {@code TAsyncClient} refuses a second):
   * its request is written on the calling thread, its reply read on the selector thread, which the
   * client's queue of calls to start orders after the write; the fields are volatile all the same.
   */
  private static final class CallSequence {
    private final InetSocketAddress endpoint;
    private final AtomicInteger next = new AtomicInteger();
    private volatile String method;
    private volatile int wireSeqid;
    private volatile int clientSeqid;

    CallSequence(InetSocketAddress endpoint) {
      this.endpoint = endpoint;
    }

    TProtocol over(TProtocol protocol) {
      return new TProtocolDecorator(protocol) {
        @Override
        public void writeMessageBegin(TMessage message) throws TException {
          if (message.type != TMessageType.CALL && message.type != TMessageType.ONEWAY) {
            super.writeMessageBegin(message);
            return;
          }
          int id = next.incrementAndGet();
          method = message.name;
          clientSeqid = message.seqid;
          wireSeqid = id;
          super.writeMessageBegin(new TMessage(message.name, message.type, id));
        }

        @Override
        public TMessage readMessageBegin() throws TException {
          TMessage got = super.readMessageBegin();
          int expected = wireSeqid;
          if (got.seqid != expected) {
            throw ReplyChecks.outOfSequence(method, endpoint, expected, got);
          }
          return new TMessage(got.name, got.type, clientSeqid);
        }
      };
    }
  }

  @Override
  public boolean validate(AsyncConnection<A> connection) {
    return connection.validate(validator);
  }

  @Override
  public void close(AsyncConnection<A> connection) {
    connection.close();
  }

  /** Stops the selector threads. Idempotent. */
  @Override
  public void close() {
    for (TAsyncClientManager m : managers) {
      if (m != null) {
        m.stop();
      }
    }
  }
}
