package io.thriftnio.testkit.sasl;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kerby.kerberos.kerb.server.KdcContext;
import org.apache.kerby.kerberos.kerb.server.KdcSetting;
import org.apache.kerby.kerberos.kerb.server.impl.AbstractInternalKdcServer;
import org.apache.kerby.kerberos.kerb.server.impl.DefaultKdcHandler;
import org.apache.kerby.kerberos.kerb.server.preauth.PreauthHandler;
import org.apache.kerby.kerberos.kerb.transport.KrbTcpTransport;

/**
 * Kerby's KDC request handling behind a TCP listener bound to loopback port 0. Kerby's own network
 * binds the port it was configured with and does not say which port it got, so a port chosen in
 * advance could be taken by another test in between; here the system picks it and {@link #port()}
 * reports it. No UDP: the {@code krb5.conf} that {@link TestKdc} writes sends every request over
 * TCP.
 */
final class LoopbackKdc extends AbstractInternalKdcServer {

  private ServerSocket listener;
  private ExecutorService handlers;

  LoopbackKdc(KdcSetting setting) {
    super(setting);
  }

  int port() {
    return listener.getLocalPort();
  }

  @Override
  protected void doStart() throws Exception {
    super.doStart();
    KdcContext context = new KdcContext(getSetting());
    context.setIdentityService(getIdentityService());
    PreauthHandler preauth = new PreauthHandler();
    preauth.init();
    context.setPreauthHandler(preauth);

    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    handlers =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "test-kdc-" + listener.getLocalPort());
              thread.setDaemon(true);
              return thread;
            });
    handlers.execute(() -> accept(context));
  }

  private void accept(KdcContext context) {
    while (!listener.isClosed()) {
      try {
        Socket socket = listener.accept();
        handlers.execute(new DefaultKdcHandler(context, new KrbTcpTransport(socket)));
      } catch (IOException e) {
        // Closing the listener ends accept() with an exception: that is how the KDC stops. Any
        // other accept failure also ends the loop; the client then fails to reach the KDC and
        // says so.
        return;
      }
    }
  }

  @Override
  protected void doStop() throws Exception {
    super.doStop();
    listener.close();
    handlers.shutdownNow();
  }
}
