package io.thriftnio.testkit.sasl;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.Sasl;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TSaslServerTransport;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.TTransportFactory;

/**
 * libthrift's own blocking SASL server, the interop peer of the SASL client tests: a {@code
 * TThreadPoolServer} on a loopback port chosen by the system, {@code TSaslServerTransport} with one
 * mechanism offering {@code auth-conf}, {@code auth-int} and {@code auth}, serving {@link
 * BenchHandler} in the binary protocol. It records each negotiated connection's authorization id
 * and quality of protection. {@link #close()} stops it.
 */
public final class LibthriftSaslServer implements AutoCloseable {

  /** The SASL protocol (service) name the servers use: {@code thrift}. */
  public static final String PROTOCOL = "thrift";

  private static final String ALL_QOPS = "auth-conf,auth-int,auth";

  private final TServer server;
  private final InetSocketAddress address;
  private final List<String> negotiated = new CopyOnWriteArrayList<>();
  private final Set<TTransport> seen =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  private LibthriftSaslServer(TSaslServerTransport.Factory sasl, Subject subject, SSLContext tls)
      throws TTransportException {
    TServerSocket socket;
    if (tls == null) {
      socket = new TServerSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    } else {
      try {
        socket =
            new TServerSocket(
                tls.getServerSocketFactory()
                    .createServerSocket(0, 50, InetAddress.getLoopbackAddress()));
      } catch (IOException e) {
        throw new TTransportException(e);
      }
    }
    TTransportFactory recording =
        new TTransportFactory() {
          @Override
          public TTransport getTransport(TTransport raw) throws TTransportException {
            TSaslServerTransport t = (TSaslServerTransport) open(sasl, subject, raw);
            if (!seen.add(t)) {
              return t; // asked again for the output side: the factory keeps one per connection
            }
            synchronized (negotiated) {
              negotiated.add(
                  t.getSaslServer().getAuthorizationID()
                      + " "
                      + t.getSaslServer().getNegotiatedProperty(Sasl.QOP));
              negotiated.notifyAll();
            }
            return t;
          }
        };
    TThreadPoolServer.Args args =
        new TThreadPoolServer.Args(socket)
            .minWorkerThreads(2)
            .maxWorkerThreads(16)
            .transportFactory(recording)
            .protocolFactory(new TBinaryProtocol.Factory())
            .processor(new BenchService.Processor<>(new BenchHandler()));
    this.server = new TThreadPoolServer(args);
    this.address =
        new InetSocketAddress(
            InetAddress.getLoopbackAddress(), socket.getServerSocket().getLocalPort());
    Thread serving = new Thread(server::serve, "libthrift-sasl-server-" + address.getPort());
    serving.setDaemon(true);
    serving.start();
  }

  /** GSSAPI's server steps need the service's Kerberos keys: they run as {@code subject}. */
  private static TTransport open(TSaslServerTransport.Factory sasl, Subject subject, TTransport raw)
      throws TTransportException {
    if (subject == null) {
      return sasl.getTransport(raw);
    }
    try {
      return Subject.doAs(
          subject, (PrivilegedExceptionAction<TTransport>) () -> sasl.getTransport(raw));
    } catch (PrivilegedActionException e) {
      throw e.getException() instanceof TTransportException
          ? (TTransportException) e.getException()
          : new TTransportException(e.getException());
    }
  }

  /**
   * DIGEST-MD5 for one user and password, service {@code thrift/localhost}.
   *
   * @param user the one user
   * @param password that user's password
   */
  public static LibthriftSaslServer digestMd5(String user, char[] password)
      throws TTransportException {
    return digestMd5(user, password, null);
  }

  /**
   * {@link #digestMd5(String, char[])} inside TLS, with {@code tls}'s server keys.
   *
   * @param tls the server's TLS context; {@code null} for plain TCP
   */
  public static LibthriftSaslServer digestMd5(String user, char[] password, SSLContext tls)
      throws TTransportException {
    TSaslServerTransport.Factory sasl = new TSaslServerTransport.Factory();
    sasl.addServerDefinition(
        "DIGEST-MD5",
        PROTOCOL,
        TestKdc.HOST,
        Map.of(Sasl.QOP, ALL_QOPS),
        new DigestCredentials(user, password));
    return new LibthriftSaslServer(sasl, null, tls);
  }

  /**
   * GSSAPI as service {@code thrift/localhost} of the JVM's {@link TestKdc}, logged in from its
   * keytab.
   */
  public static LibthriftSaslServer gssapi(TestKdc kdc) throws TTransportException {
    Subject service = kdc.login(PROTOCOL + "/" + TestKdc.HOST);
    TSaslServerTransport.Factory sasl = new TSaslServerTransport.Factory();
    sasl.addServerDefinition(
        "GSSAPI",
        PROTOCOL,
        TestKdc.HOST,
        Map.of(Sasl.QOP, ALL_QOPS, Sasl.SERVER_AUTH, "true"),
        new AuthorizeSame());
    return new LibthriftSaslServer(sasl, service, null);
  }

  /** The server's address. */
  public InetSocketAddress address() {
    return address;
  }

  /**
   * Each negotiated connection so far, in order: {@code "authorizationId qop"}, for example {@code
   * "alice auth-conf"}.
   */
  public List<String> negotiated() {
    return List.copyOf(negotiated);
  }

  /**
   * {@link #negotiated()} once it has {@code count} entries: the server records a connection after
   * it sent {@code COMPLETE}, so a client's open may return a moment before.
   *
   * @throws IllegalStateException if it has fewer after 10 seconds
   */
  public List<String> awaitNegotiated(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    synchronized (negotiated) {
      while (negotiated.size() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(
              "negotiated: " + negotiated + " (expected: " + count + " connections)");
        }
        TimeUnit.NANOSECONDS.timedWait(negotiated, left);
      }
      return List.copyOf(negotiated);
    }
  }

  @Override
  public void close() {
    server.stop();
  }

  /** Lets an authenticated peer act as itself only. */
  private static class AuthorizeSame implements CallbackHandler {
    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
      for (Callback callback : callbacks) {
        if (!(callback instanceof AuthorizeCallback)) {
          throw new UnsupportedCallbackException(callback);
        }
        authorize((AuthorizeCallback) callback);
      }
    }

    static void authorize(AuthorizeCallback authorize) {
      String wanted = authorize.getAuthorizationID();
      authorize.setAuthorized(wanted == null || wanted.equals(authorize.getAuthenticationID()));
    }
  }

  /** The DIGEST-MD5 server's password look-up, for one user. */
  private static final class DigestCredentials implements CallbackHandler {
    private final String user;
    private final char[] password;

    DigestCredentials(String user, char[] password) {
      this.user = user;
      this.password = password.clone();
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
      String asked = null; // the name and the password callbacks come in one call
      for (Callback callback : callbacks) {
        if (callback instanceof NameCallback) {
          asked = ((NameCallback) callback).getDefaultName();
        } else if (callback instanceof PasswordCallback) {
          if (user.equals(asked)) {
            ((PasswordCallback) callback).setPassword(password);
          }
        } else if (callback instanceof RealmCallback) {
          RealmCallback realm = (RealmCallback) callback;
          realm.setText(realm.getDefaultText());
        } else if (callback instanceof AuthorizeCallback) {
          AuthorizeSame.authorize((AuthorizeCallback) callback);
        } else {
          throw new UnsupportedCallbackException(callback);
        }
      }
    }
  }
}
