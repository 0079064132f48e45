package io.thriftnio.testkit.conformance;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.SSLConnectionSocketFactoryBuilder;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;

/** The client kinds the suite knows, and adapters that turn a library's clients into one. */
public final class ClientKinds {

  /** Per-call bound for channel-backed calls made by the suite, in seconds. */
  private static final long CALL_TIMEOUT_SECONDS = 60;

  private ClientKinds() {}

  /** Opens a framed transport to an address: the shape of every sync client transport. */
  @FunctionalInterface
  public interface TransportFactory {
    /** Returns an open transport that frames as {@code TFramedTransport} does. */
    TTransport open(InetSocketAddress address) throws Exception;
  }

  /** Opens an async channel to an address. */
  @FunctionalInterface
  public interface ChannelFactory {
    /** Returns a connected channel. */
    ThriftChannel connect(InetSocketAddress address) throws Exception;
  }

  /** Stock libthrift: {@code TSocket} wrapped in {@code TFramedTransport}. */
  public static ClientKind stockSocket() {
    return syncTransport(
        "tsocket",
        address -> {
          TSocket socket = new TSocket(address.getHostString(), address.getPort(), 30_000);
          TTransport framed = new TFramedTransport(socket);
          framed.open();
          return framed;
        });
  }

  /**
   * Stock libthrift without framing: a bare {@code TSocket}, as Python's, Ruby's and PHP's default
   * clients speak. The server must accept {@code WireKind.UNFRAMED}.
   */
  public static ClientKind stockUnframedSocket() {
    return syncTransport(
        "tsocket-unframed",
        address -> {
          TSocket socket = new TSocket(address.getHostString(), address.getPort(), 30_000);
          socket.open();
          return socket;
        });
  }

  /**
   * Stock libthrift over HTTP: {@code THttpClient} with its default back-end, the JDK's {@code
   * HttpURLConnection}, posting to {@code path}. The server must accept {@code WireKind.HTTP}.
   */
  public static ClientKind stockHttp(String path) {
    return syncTransport(
        "thttpclient",
        address -> {
          THttpClient http = new THttpClient(url(address, path));
          http.setConnectTimeout(30_000);
          http.setReadTimeout(30_000);
          http.open();
          return http;
        });
  }

  /**
   * As {@link #stockHttp(String)}, with {@code THttpClient}'s other back-end, Apache HttpClient 5
   * (one client, keep-alive connections pooled, closed with the transport).
   */
  public static ClientKind stockHttpApache(String path) {
    return named(
        "thttpclient-apache",
        (address, protocol) -> {
          CloseableHttpClient apache = HttpClients.createDefault();
          THttpClient http = new THttpClient(url(address, path), apache);
          http.open();
          BenchService.Iface client = new BenchService.Client(protocol.getProtocol(http));
          return connection(
              new Opened<>(
                  client,
                  () -> {
                    http.close();
                    apache.close();
                  }));
        });
  }

  /**
   * As {@link #stockHttpApache(String)}, over HTTPS with {@code tls} (Apache HttpClient 5 verifies
   * the server's host name against its certificate, so the server's certificate must name the
   * address the test connects to).
   */
  public static ClientKind stockHttpsApache(String path, SSLContext tls) {
    return named(
        "thttpclient-apache-https",
        (address, protocol) -> {
          CloseableHttpClient apache =
              HttpClients.custom()
                  .setConnectionManager(
                      PoolingHttpClientConnectionManagerBuilder.create()
                          .setSSLSocketFactory(
                              SSLConnectionSocketFactoryBuilder.create().setSslContext(tls).build())
                          .build())
                  .build();
          THttpClient http =
              new THttpClient(
                  "https://" + address.getHostString() + ":" + address.getPort() + path, apache);
          http.open();
          BenchService.Iface client = new BenchService.Client(protocol.getProtocol(http));
          return connection(
              new Opened<>(
                  client,
                  () -> {
                    http.close();
                    apache.close();
                  }));
        });
  }

  private static String url(InetSocketAddress address, String path) {
    return "http://" + address.getHostString() + ":" + address.getPort() + path;
  }

  /** As {@link #stockUnframedSocket()}, over TLS through {@code tls}. */
  public static ClientKind stockUnframedSocket(SSLSocketFactory tls) {
    return syncTransport(
        "tsocket-unframed-tls",
        address -> {
          Socket s = tls.createSocket(address.getHostString(), address.getPort());
          s.setSoTimeout(30_000);
          return new TSocket(s);
        });
  }

  /** A generated sync client over any framed transport. */
  public static ClientKind syncTransport(String name, TransportFactory factory) {
    return named(
        name,
        (address, protocol) -> {
          TTransport transport = factory.open(address);
          BenchService.Iface client = new BenchService.Client(protocol.getProtocol(transport));
          return connection(new Opened<>(client, transport::close));
        });
  }

  /**
   * Calls through {@link AsyncClients#asyncIface} over a channel, waiting for each result, so the
   * whole suite exercises the channel, the bridge and its proxy.
   */
  public static ClientKind channel(String name, ChannelFactory factory) {
    return named(
        name,
        (address, protocol) -> {
          ThriftChannel channel = factory.connect(address);
          Executor executor = ForkJoinPool.commonPool();
          BenchService.AsyncIface async =
              AsyncClients.asyncIface(
                  BenchService.AsyncIface.class,
                  channel,
                  BenchService.Client::new,
                  protocol,
                  executor);
          return connection(new Opened<>(new BlockingIface(async), channel::close));
        });
  }

  /** A client interface and the resources that close with it. */
  public record Opened<T>(T iface, AutoCloseable resources) {}

  /** Opens a blocking {@code Iface} to an address, e.g. a pool's {@code iface()} proxy. */
  @FunctionalInterface
  public interface IfaceFactory {
    /** Returns the interface and what to close after the test. */
    Opened<BenchService.Iface> open(InetSocketAddress address, TProtocolFactory protocol)
        throws Exception;
  }

  /** Opens an {@code AsyncIface} to an address, e.g. a pool's {@code asyncIface()} proxy. */
  @FunctionalInterface
  public interface AsyncIfaceFactory {
    /** Returns the interface and what to close after the test. */
    Opened<BenchService.AsyncIface> open(InetSocketAddress address, TProtocolFactory protocol)
        throws Exception;
  }

  /** Calls through any blocking {@code Iface}, such as a pool's proxy. */
  public static ClientKind iface(String name, IfaceFactory factory) {
    return named(name, (address, protocol) -> connection(factory.open(address, protocol)));
  }

  /** Calls through any {@code AsyncIface}, waiting for each callback. */
  public static ClientKind asyncIface(String name, AsyncIfaceFactory factory) {
    return named(
        name,
        (address, protocol) -> {
          Opened<BenchService.AsyncIface> opened = factory.open(address, protocol);
          return connection(new Opened<>(new BlockingIface(opened.iface()), opened.resources()));
        });
  }

  /** A blocking {@code Iface} over {@code async}: each call waits for its callback. */
  public static BenchService.Iface blocking(BenchService.AsyncIface async) {
    return new BlockingIface(async);
  }

  /** How a kind connects; the part that differs between kinds. */
  @FunctionalInterface
  private interface Connector {
    BenchConnection connect(InetSocketAddress address, TProtocolFactory protocol) throws Exception;
  }

  /** A kind with a name (also its {@code toString}, for test reports) and a connector. */
  private static ClientKind named(String name, Connector connector) {
    return new ClientKind() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public BenchConnection connect(InetSocketAddress address, TProtocolFactory protocol)
          throws Exception {
        return connector.connect(address, protocol);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  private static BenchConnection connection(Opened<BenchService.Iface> opened) {
    return new BenchConnection() {
      @Override
      public BenchService.Iface iface() {
        return opened.iface();
      }

      @Override
      public void close() {
        try {
          opened.resources().close();
        } catch (Exception e) {
          throw new IllegalStateException("closing " + opened.resources() + " failed", e);
        }
      }
    };
  }

  /** Waits for an {@code AsyncIface}'s callbacks, rethrowing what they report. */
  private static final class BlockingIface implements BenchService.Iface {
    private final BenchService.AsyncIface async;

    BlockingIface(BenchService.AsyncIface async) {
      this.async = async;
    }

    @FunctionalInterface
    private interface AsyncCall<T> {
      void start(AsyncMethodCallback<T> callback) throws TException;
    }

    private static <T> T await(AsyncCall<T> call) throws TException {
      CompletableFuture<T> future = new CompletableFuture<>();
      call.start(
          new AsyncMethodCallback<T>() {
            @Override
            public void onComplete(T response) {
              future.complete(response);
            }

            @Override
            public void onError(Exception exception) {
              future.completeExceptionally(exception);
            }
          });
      try {
        return future.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof TException) {
          throw (TException) cause;
        }
        if (cause instanceof RuntimeException) {
          throw (RuntimeException) cause;
        }
        throw new TException(cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new TException("interrupted", e);
      } catch (TimeoutException e) {
        throw new TException("no callback within " + CALL_TIMEOUT_SECONDS + " s", e);
      }
    }

    @Override
    public ByteBuffer echo(ByteBuffer payload) throws TException {
      return await(cb -> async.echo(payload, cb));
    }

    @Override
    public io.thriftnio.testkit.gen.TradeReport get_last_sale(String symbol) throws TException {
      return await(cb -> async.get_last_sale(symbol, cb));
    }

    @Override
    public List<io.thriftnio.testkit.gen.TestInfo> db_work(int count) throws TException {
      return await(cb -> async.db_work(count, cb));
    }

    @Override
    public io.thriftnio.testkit.gen.Nested get_nested(int depth) throws TException {
      return await(cb -> async.get_nested(depth, cb));
    }

    @Override
    public void sleep(int millis) throws TException {
      ClientKinds.BlockingIface.<Void>await(cb -> async.sleep(millis, cb));
    }

    @Override
    public void fail(int code, String message) throws TException {
      ClientKinds.BlockingIface.<Void>await(cb -> async.fail(code, message, cb));
    }

    @Override
    public void fire(ByteBuffer payload) throws TException {
      ClientKinds.BlockingIface.<Void>await(cb -> async.fire(payload, cb));
    }

    @Override
    public long fired() throws TException {
      Long n = await(async::fired);
      return n;
    }
  }
}
