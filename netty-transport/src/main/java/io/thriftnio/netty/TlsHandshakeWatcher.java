package io.thriftnio.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.wire.FirstBytes;
import java.nio.channels.ClosedChannelException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sits behind the server's {@code SslHandler} until the handshake completes: a failed or timed-out
 * handshake (a plain-text client, a missing or untrusted client certificate) closes the connection
 * and counts one {@code tlsFailures} in the server's connection registry, with one log line at most
 * per power of two of failures. A connection closed before any TLS error (a TCP health check) is
 * not counted, as on Grizzly. On success it notes the peer's identity and leaves the pipeline.
 */
final class TlsHandshakeWatcher extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(TlsHandshakeWatcher.class);

  private final ConnectionRegistry<ConnectionHandle> registry;
  private final RegisteredConnection<ConnectionHandle> connection;

  TlsHandshakeWatcher(
      ConnectionRegistry<ConnectionHandle> registry,
      RegisteredConnection<ConnectionHandle> connection) {
    this.registry = registry;
    this.connection = connection;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent) {
      SslHandshakeCompletionEvent done = (SslHandshakeCompletionEvent) evt;
      if (done.isSuccess()) {
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        if (tls != null) {
          connection.tlsEstablished(tls.engine().getSession());
        }
        ctx.pipeline().remove(this);
      } else if (done.cause() instanceof ClosedChannelException) {
        // Closed before a TLS error: a TCP health check or a port probe, or the server's own close.
        log.debug(
            "Connection from {} closed during the TLS handshake", ctx.channel().remoteAddress());
      } else {
        fail(ctx, done.cause());
      }
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    SSLException tls = findSslException(cause);
    if (tls != null) {
      fail(ctx, tls); // the handshake did not complete, or this handler would be gone
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  private void fail(ChannelHandlerContext ctx, Throwable cause) {
    registry.tlsFailed(connection, reason(cause)); // counted once per connection; closes it
  }

  private static String reason(Throwable cause) {
    if (cause instanceof NotSslRecordException) {
      return FirstBytes.PLAINTEXT_ON_TLS; // its message dumps them all
    }
    return cause instanceof SslHandshakeTimeoutException ? cause.getMessage() : cause.toString();
  }

  private static SSLException findSslException(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return (SSLException) t;
      }
    }
    return null;
  }
}
