package io.thriftnio.core.internal.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.server.AbstractNonblockingServer;
import org.apache.thrift.server.TNonblockingServer;
import org.apache.thrift.transport.TNonblockingTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * Runs a {@link TAsyncProcessor} outside libthrift's non-blocking servers.
 *
 * <p>libthrift's only entry point for asynchronous processors, {@code process(AsyncFrameBuffer)},
 * takes an inner class of {@link AbstractNonblockingServer}. Generated async handlers use four of
 * its methods: the two protocols, {@code responseReady()} when the response is written, and {@code
 * close()} when it cannot be. This bridge supplies a frame buffer whose four methods talk to a
 * {@link InvokerCall}; the never-started host server and placeholder socket exist only to satisfy
 * the constructors. Not part of the public API.
 */
final class AsyncProcessorBridge {

  private final TAsyncProcessor processor;
  private final HostServer host = new HostServer();
  private final TNonblockingTransport placeholder;

  AsyncProcessorBridge(TAsyncProcessor processor) {
    this.processor = processor;
    try {
      this.placeholder = new PlaceholderTransport();
    } catch (TTransportException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Starts processing; the call completes or fails when the handler calls back. */
  void process(InvokerCall call) {
    try {
      processor.process(host.newFrameBuffer(placeholder, call));
    } catch (Throwable t) {
      call.fail(t);
    }
  }

  private static final class HostServer extends AbstractNonblockingServer {
    HostServer() {
      super(new TNonblockingServer.Args(null));
    }

    AsyncFrameBuffer newFrameBuffer(TNonblockingTransport transport, InvokerCall call)
        throws TTransportException {
      return new BridgedFrameBuffer(transport, call);
    }

    @Override
    protected boolean startThreads() {
      return false;
    }

    @Override
    protected void waitForShutdown() {}

    @Override
    protected boolean startListening() {
      return false;
    }

    @Override
    protected void stopListening() {}

    @Override
    protected boolean requestInvoke(FrameBuffer frameBuffer) {
      return false;
    }

    private final class BridgedFrameBuffer extends AsyncFrameBuffer {
      private final InvokerCall call;

      BridgedFrameBuffer(TNonblockingTransport transport, InvokerCall call)
          throws TTransportException {
        super(transport, null, null);
        this.call = call;
      }

      @Override
      public TProtocol getInputProtocol() {
        return call.inputProtocol();
      }

      @Override
      public TProtocol getOutputProtocol() {
        return call.outputProtocol();
      }

      @Override
      public void responseReady() {
        // The handler's completion: afterCall runs inside the interceptors' scopes (attach).
        Runnable[] scopes = call.completionScopes();
        if (scopes != null) { // else an attach threw, and the call is answered
          try {
            call.complete();
          } finally {
            call.closeScopes(scopes);
          }
        }
      }

      @Override
      public void close() {
        // Generated code calls close() when the handler reports a TTransportException or its
        // response cannot be written (e.g. it exceeds maxFrameSize). The request was read, so
        // this is an internal error, not a malformed request: hence not a TTransportException.
        Runnable[] scopes = call.completionScopes();
        if (scopes != null) {
          try {
            call.fail(new TException("async handler could not write its response"));
          } finally {
            call.closeScopes(scopes);
          }
        }
      }
    }
  }

  /** Never connected: only its configuration is read by libthrift's frame buffer constructor. */
  private static final class PlaceholderTransport extends TNonblockingTransport {
    PlaceholderTransport() throws TTransportException {
      super(new TConfiguration());
    }

    @Override
    public boolean startConnect() throws IOException {
      throw new IOException("placeholder transport");
    }

    @Override
    public boolean finishConnect() throws IOException {
      throw new IOException("placeholder transport");
    }

    @Override
    public SelectionKey registerSelector(Selector selector, int interests) throws IOException {
      throw new IOException("placeholder transport");
    }

    @Override
    public int read(ByteBuffer buffer) throws TTransportException {
      throw new TTransportException(TTransportException.NOT_OPEN, "placeholder transport");
    }

    @Override
    public int write(ByteBuffer buffer) throws TTransportException {
      throw new TTransportException(TTransportException.NOT_OPEN, "placeholder transport");
    }

    @Override
    public boolean isOpen() {
      return false;
    }

    @Override
    public void open() throws TTransportException {
      throw new TTransportException(TTransportException.NOT_OPEN, "placeholder transport");
    }

    @Override
    public void close() {}

    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
      throw new TTransportException(TTransportException.NOT_OPEN, "placeholder transport");
    }

    @Override
    public void write(byte[] buf, int off, int len) throws TTransportException {
      throw new TTransportException(TTransportException.NOT_OPEN, "placeholder transport");
    }
  }
}
