package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.server.ServerContext;
import org.apache.thrift.server.TNonblockingServer;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.TNonblockingServerSocket;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;

/** A stock libthrift server with framed transport on 127.0.0.1, port 0. */
final class StockServer implements AutoCloseable {

  enum Kind {
    THREADED_SELECTOR,
    NONBLOCKING,
    THREAD_POOL
  }

  private final TServer server;
  private final Thread thread;
  private final InetSocketAddress address;

  private StockServer(TServer server, int port, Kind kind) throws InterruptedException {
    this.server = server;
    this.address = new InetSocketAddress("127.0.0.1", port);
    CountDownLatch serving = new CountDownLatch(1);
    server.setServerEventHandler(
        new TServerEventHandler() {
          @Override
          public void preServe() {
            serving.countDown();
          }

          @Override
          public ServerContext createContext(TProtocol input, TProtocol output) {
            // libthrift 0.25 sets the peer address on the context: it must not be null.
            return new ServerContext() {
              @Override
              public <T> T unwrap(Class<T> iface) {
                throw new UnsupportedOperationException();
              }

              @Override
              public boolean isWrapperFor(Class<?> iface) {
                return false;
              }
            };
          }

          @Override
          public void deleteContext(ServerContext ctx, TProtocol input, TProtocol output) {}

          @Override
          public void processContext(ServerContext ctx, TTransport in, TTransport out) {}
        });
    this.thread = new Thread(server::serve, "stock-" + kind + "-" + port);
    thread.setDaemon(true);
    thread.start();
    if (!serving.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException(kind + " server did not start");
    }
  }

  static StockServer start(Kind kind, TProcessor processor) throws Exception {
    InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
    switch (kind) {
      case THREADED_SELECTOR:
        {
          TNonblockingServerSocket socket = new TNonblockingServerSocket(any);
          TThreadedSelectorServer.Args args =
              new TThreadedSelectorServer.Args(socket)
                  .selectorThreads(2)
                  .workerThreads(8)
                  .stopTimeoutVal(2);
          args.processor(processor);
          return new StockServer(new TThreadedSelectorServer(args), socket.getPort(), kind);
        }
      case NONBLOCKING:
        {
          TNonblockingServerSocket socket = new TNonblockingServerSocket(any);
          TNonblockingServer.Args args = new TNonblockingServer.Args(socket);
          args.processor(processor);
          return new StockServer(new TNonblockingServer(args), socket.getPort(), kind);
        }
      case THREAD_POOL:
        {
          TServerSocket socket = new TServerSocket(any);
          TThreadPoolServer.Args args =
              new TThreadPoolServer.Args(socket)
                  .minWorkerThreads(4)
                  .maxWorkerThreads(300)
                  .stopTimeoutVal(2)
                  .stopTimeoutUnit(TimeUnit.SECONDS);
          args.processor(processor);
          args.transportFactory(new TFramedTransport.Factory());
          return new StockServer(
              new TThreadPoolServer(args), socket.getServerSocket().getLocalPort(), kind);
        }
      default:
        throw new IllegalArgumentException(String.valueOf(kind));
    }
  }

  InetSocketAddress address() {
    return address;
  }

  @Override
  public void close() {
    server.stop();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
