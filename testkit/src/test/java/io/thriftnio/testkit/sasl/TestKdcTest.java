package io.thriftnio.testkit.sasl;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.PrivilegedExceptionAction;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.Oid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class TestKdcTest {

  private static final Oid KERBEROS;

  static {
    try {
      KERBEROS = new Oid("1.2.840.113554.1.2.2");
    } catch (org.ietf.jgss.GSSException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @Test
  void aClientSubjectGetsAServiceTicketThatTheServiceAccepts() throws Exception {
    TestKdc kdc = TestKdc.shared();
    Subject client = kdc.login("kdc-smoke-client");
    Subject service = kdc.login("kdc-smoke/" + TestKdc.HOST);
    GSSManager gss = GSSManager.getInstance();

    byte[] token =
        Subject.doAs(
            client,
            (PrivilegedExceptionAction<byte[]>)
                () -> {
                  GSSName name =
                      gss.createName("kdc-smoke@" + TestKdc.HOST, GSSName.NT_HOSTBASED_SERVICE);
                  GSSContext context =
                      gss.createContext(name, KERBEROS, null, GSSContext.DEFAULT_LIFETIME);
                  context.requestMutualAuth(false);
                  return context.initSecContext(new byte[0], 0, 0);
                });

    assertThat(client.getPrivateCredentials(KerberosTicket.class))
        .extracting(ticket -> ticket.getServer().getName())
        .contains(kdc.principal("kdc-smoke/" + TestKdc.HOST));
    String initiator =
        Subject.doAs(
            service,
            (PrivilegedExceptionAction<String>)
                () -> {
                  GSSContext context = gss.createContext((GSSCredential) null);
                  context.acceptSecContext(token, 0, token.length);
                  assertThat(context.isEstablished()).isTrue();
                  return context.getSrcName().toString();
                });
    assertThat(initiator).isEqualTo(kdc.principal("kdc-smoke-client"));
  }

  @Test
  void theSharedKdcIsOnePerJvmAndTheJdkIsPointedAtIt() {
    TestKdc kdc = TestKdc.shared();

    assertThat(TestKdc.shared()).isSameAs(kdc);
    assertThat(System.getProperty("java.security.krb5.conf")).isEqualTo(kdc.krb5Conf().toString());
    assertThat(kdc.port()).isPositive();
    assertThat(kdc.keytab("kdc-smoke-repeat")).isEqualTo(kdc.keytab("kdc-smoke-repeat")).exists();
  }
}
