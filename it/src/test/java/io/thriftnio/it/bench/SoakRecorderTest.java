package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.util.internal.CallTimeoutException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How the soak sorts errors into fault windows and kinds. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SoakRecorderTest {

  private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(200);

  @Test
  void anErrorInAGracefulRestartCountsThereUnlessAKillExplainsIt() {
    SoakRecorder r = new SoakRecorder(GRACE);
    TTransportException eof = new TTransportException(TTransportException.END_OF_FILE, "eof");

    Object graceful = r.faultStarted(SoakRecorder.Window.GRACEFUL);
    r.poolError(eof, "sync");
    Object kill = r.faultStarted(SoakRecorder.Window.KILL);
    r.poolError(eof, "async"); // both open: the kill's
    r.faultEnded(kill);
    r.faultEnded(graceful);

    assertThat(r.errorsByKind(SoakRecorder.Window.GRACEFUL))
        .isEqualTo(Map.of("sync transport-eof", 1L));
    assertThat(r.errorsByKind(SoakRecorder.Window.KILL))
        .isEqualTo(Map.of("async transport-eof", 1L));
    assertThat(r.errors(SoakRecorder.Window.NONE)).isZero();
  }

  @Test
  void errorsCountInTheWindowOfTheFaultThatIsOpenAndOutsideOtherwise() {
    AtomicLong now = new AtomicLong();
    SoakRecorder r = new SoakRecorder(GRACE, now::get);
    TTransportException eof = new TTransportException(TTransportException.END_OF_FILE, "eof");

    r.error(eof); // before any fault
    Object kill = r.faultStarted(SoakRecorder.Window.KILL);
    r.error(eof);
    r.faultEnded(kill);
    r.error(eof); // within the grace
    Object restart = r.faultStarted(SoakRecorder.Window.RESTART);
    r.error(eof); // both windows open: the restart's
    r.faultEnded(restart);
    now.addAndGet(GRACE - 1);
    r.error(eof); // the restart's grace, still
    now.addAndGet(2);
    r.error(eof); // both closed

    assertThat(r.errors(SoakRecorder.Window.NONE)).isEqualTo(2);
    assertThat(r.errors(SoakRecorder.Window.KILL)).isEqualTo(2);
    assertThat(r.errors(SoakRecorder.Window.RESTART)).isEqualTo(2);
    assertThat(r.errorsByKind(SoakRecorder.Window.NONE)).isEqualTo(Map.of("transport-eof", 2L));
  }

  @Test
  void namesTheKindsOfErrors() {
    assertThat(SoakRecorder.kind(new TTransportException(TTransportException.TIMED_OUT, "t")))
        .isEqualTo("timeout");
    assertThat(SoakRecorder.kind(new TTransportException("no", new ConnectException("refused"))))
        .isEqualTo("connect-refused");
    assertThat(SoakRecorder.kind(new IllegalStateException("x")))
        .isEqualTo("IllegalStateException");
  }

  @Test
  void theFirstSuccessAfterARestartMeasuresTheRecovery() {
    SoakRecorder r = new SoakRecorder(GRACE);
    r.ok();
    r.restarted();
    r.ok();
    r.ok();

    assertThat(r.recoveries()).hasSize(1);
    assertThat(r.okCalls()).isEqualTo(3);
  }

  @Test
  void aSlowCallThatTimesOutIsNoErrorButOneThatFailsOtherwiseIs() {
    SoakRecorder r = new SoakRecorder(GRACE);
    // The sync pool's socket read timeout, and the channel's own timeout wrapped by its future.
    r.slowCallEnded(
        new TTransportException(
            TTransportException.UNKNOWN, "read", new SocketTimeoutException("Read timed out")),
        "sync",
        TimeUnit.SECONDS.toNanos(5));
    r.slowCallEnded(
        new CompletionException(new CallTimeoutException("timed out after 5000 ms", false)),
        "async",
        TimeUnit.SECONDS.toNanos(5));
    r.slowCallEnded(
        new TTransportException(TTransportException.NOT_OPEN, "closed"),
        "async",
        TimeUnit.SECONDS.toNanos(5));
    r.slowCallEnded(
        null, "async", TimeUnit.SECONDS.toNanos(6)); // answered: the timeout did not end it
    Object kill = r.faultStarted(SoakRecorder.Window.KILL);
    r.slowCallEnded(
        new TTransportException(TTransportException.END_OF_FILE, "eof"),
        "sync",
        TimeUnit.SECONDS.toNanos(5));
    r.faultEnded(kill);

    assertThat(r.slowTimedOut()).isEqualTo(2);
    assertThat(r.slowAnswered()).isEqualTo(1);
    assertThat(r.slowAnsweredByPool()).isEqualTo(Map.of("async", 1L));
    assertThat(r.slowAnsweredLongestNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(6));
    assertThat(r.errorsByKind(SoakRecorder.Window.KILL))
        .isEqualTo(Map.of("sync slow transport-eof", 1L));
    assertThat(r.errorsByKind(SoakRecorder.Window.NONE))
        .isEqualTo(Map.of("async slow transport-not-open", 1L));
    assertThat(r.errors()).isEqualTo(2);
    assertThat(r.okCalls()).isZero();
  }

  @Test
  void aCallThatTimedOutOnlyBehindAnotherIsCountedApartFromErrors() {
    SoakRecorder r = new SoakRecorder(GRACE);
    r.poolError(new CompletionException(new CallTimeoutException("behind", true)), "async");
    r.poolError(new CallTimeoutException("its own", false), "async");

    assertThat(r.timedOutBehind()).isEqualTo(1);
    assertThat(r.errorsByKind(SoakRecorder.Window.NONE)).isEqualTo(Map.of("async timeout", 1L));
  }

  @Test
  void ejectionsCountInTheWindowOpenWhenTheyAreSeen() {
    SoakRecorder r = new SoakRecorder(GRACE);
    r.ejections(0);
    r.ejections(1); // no fault: a live server
    Object kill = r.faultStarted(SoakRecorder.Window.KILL);
    r.ejections(2);
    r.ejections(2); // nothing new
    r.faultEnded(kill);
    Object restart = r.faultStarted(SoakRecorder.Window.RESTART); // it wins over the kill's grace
    r.ejections(4);
    r.faultEnded(restart);

    assertThat(r.ejections(SoakRecorder.Window.NONE)).isEqualTo(1);
    assertThat(r.ejections(SoakRecorder.Window.RESTART)).isEqualTo(2);
    assertThat(r.ejections(SoakRecorder.Window.KILL)).isEqualTo(1);
    assertThat(r.ejections(SoakRecorder.Window.GRACEFUL)).isZero();
  }
}
