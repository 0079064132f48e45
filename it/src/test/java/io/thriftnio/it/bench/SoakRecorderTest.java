package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
  void errorsCountInTheWindowOfTheFaultThatIsOpenAndOutsideOtherwise() throws Exception {
    SoakRecorder r = new SoakRecorder(GRACE);
    TTransportException eof = new TTransportException(TTransportException.END_OF_FILE, "eof");

    r.error(eof); // before any fault
    Object kill = r.faultStarted(SoakRecorder.Window.KILL);
    r.error(eof);
    r.faultEnded(kill);
    r.error(eof); // within the grace
    Object restart = r.faultStarted(SoakRecorder.Window.RESTART);
    r.error(eof); // both windows open: the restart's
    r.faultEnded(restart);
    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(GRACE) + 100);
    r.error(eof); // both closed

    assertThat(r.errors(SoakRecorder.Window.NONE)).isEqualTo(2);
    assertThat(r.errors(SoakRecorder.Window.KILL)).isEqualTo(2);
    assertThat(r.errors(SoakRecorder.Window.RESTART)).isEqualTo(1);
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
}
