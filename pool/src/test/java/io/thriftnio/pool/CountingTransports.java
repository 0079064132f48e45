package io.thriftnio.pool;

import io.thriftnio.core.ClientOptions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TLayeredTransport;

/**
 * Wraps the stock factory and counts transports opened and not yet closed, the highest that count
 * reached, and opens per endpoint. Optionally fails every n-th open.
 */
final class CountingTransports implements ClientTransportFactory {
  final AtomicInteger open = new AtomicInteger();
  final AtomicInteger maxOpen = new AtomicInteger();
  final AtomicInteger opened = new AtomicInteger();
  private final ClientTransportFactory delegate;

  CountingTransports(Duration readTimeout) {
    this.delegate =
        ClientTransportFactory.stock(
            ClientOptions.builder()
                .connectTimeout(Duration.ofSeconds(5))
                .callTimeout(readTimeout)
                .build());
  }

  @Override
  public TTransport open(InetSocketAddress endpoint) throws TTransportException {
    TTransport t = delegate.open(endpoint);
    opened.incrementAndGet();
    int now = open.incrementAndGet();
    maxOpen.accumulateAndGet(now, Math::max);
    return new Counted(t);
  }

  private final class Counted extends TLayeredTransport {
    private boolean closed;

    Counted(TTransport inner) {
      super(inner);
    }

    @Override
    public boolean isOpen() {
      return getInnerTransport().isOpen();
    }

    @Override
    public void open() throws TTransportException {
      getInnerTransport().open();
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        open.decrementAndGet();
      }
      getInnerTransport().close();
    }

    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
      return getInnerTransport().read(buf, off, len);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws TTransportException {
      getInnerTransport().write(buf, off, len);
    }

    @Override
    public void flush() throws TTransportException {
      getInnerTransport().flush();
    }

    @Override
    public TConfiguration getConfiguration() {
      return getInnerTransport().getConfiguration();
    }
  }
}
