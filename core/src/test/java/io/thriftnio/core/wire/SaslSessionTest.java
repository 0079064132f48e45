package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One connection's mechanism across threads: disposed exactly once, never while a step, the decoder
 * or a wrap uses it, whichever thread closes.
 */
@Timeout(30)
class SaslSessionTest {

  /** Counts its disposals; a wrap after one fails, as a real mechanism's would. */
  private static final class Counting implements SaslServer {
    final AtomicInteger disposed = new AtomicInteger();

    @Override
    public String getMechanismName() {
      return "TEST";
    }

    @Override
    public byte[] evaluateResponse(byte[] response) {
      return response;
    }

    @Override
    public boolean isComplete() {
      return true;
    }

    @Override
    public String getAuthorizationID() {
      return "alice";
    }

    @Override
    public byte[] unwrap(byte[] incoming, int offset, int len) {
      return wrap(incoming, offset, len);
    }

    @Override
    public byte[] wrap(byte[] outgoing, int offset, int len) {
      if (disposed.get() > 0) {
        throw new IllegalStateException("used after dispose");
      }
      return java.util.Arrays.copyOfRange(outgoing, offset, offset + len);
    }

    @Override
    public Object getNegotiatedProperty(String propName) {
      return null;
    }

    @Override
    public void dispose() {
      disposed.incrementAndGet();
    }
  }

  @Test
  void aCloseWithNothingInUseDisposesAtOnceAndOnce() {
    SaslSession session = new SaslSession(InetSocketAddress.createUnresolved("peer", 0));
    Counting server = new Counting();
    assertThat(session.begin()).isTrue();
    session.made(server);
    session.end();
    session.close();
    session.close();
    assertThat(server.disposed).hasValue(1);
    assertThat(session.begin()).as("no use after the close").isFalse();
  }

  @Test
  void aCloseDuringAUseDisposesWhenTheUseEnds() {
    SaslSession session = new SaslSession(InetSocketAddress.createUnresolved("peer", 0));
    Counting server = new Counting();
    assertThat(session.begin()).isTrue(); // a step: it makes the server after the close
    session.close();
    session.made(server);
    assertThat(server.disposed).hasValue(0);
    session.end();
    assertThat(server.disposed).hasValue(1);
  }

  @Test
  void aWrapAfterTheCloseFailsWithoutTouchingTheMechanism() throws Exception {
    SaslSession session = new SaslSession(InetSocketAddress.createUnresolved("peer", 0));
    Counting server = new Counting();
    session.begin();
    session.made(server);
    session.end();
    assertThat(session.wrap(new byte[] {1, 2}, 0, 2)).containsExactly(1, 2);
    session.close();
    assertThatThrownBy(() -> session.wrap(new byte[] {1}, 0, 1))
        .isInstanceOf(SaslException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void wrapsAndUnwrapsOnManyThreadsWhileAnotherClosesNeverUseADisposedMechanism() throws Exception {
    for (int round = 0; round < 50; round++) {
      SaslSession session = new SaslSession(InetSocketAddress.createUnresolved("peer", 0));
      Counting server = new Counting();
      session.begin();
      session.made(server);
      session.end();
      CountDownLatch go = new CountDownLatch(1);
      List<Throwable> misuse = new java.util.concurrent.CopyOnWriteArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        boolean unwrap = t % 2 == 0;
        Thread thread =
            new Thread(
                () -> {
                  try {
                    go.await();
                    for (int i = 0; i < 200; i++) {
                      byte[] b = {(byte) i};
                      if (unwrap) {
                        session.unwrap(b, 0, 1);
                      } else {
                        session.wrap(b, 0, 1);
                      }
                    }
                  } catch (SaslException closed) {
                    // refused after the close, as it should be
                  } catch (Throwable e) {
                    misuse.add(e);
                  }
                });
        thread.start();
        threads.add(thread);
      }
      go.countDown();
      session.close();
      for (Thread thread : threads) {
        thread.join(TimeUnit.SECONDS.toMillis(10));
      }
      assertThat(misuse).as("a mechanism used after its dispose").isEmpty();
      assertThat(server.disposed).hasValue(1);
    }
  }
}
