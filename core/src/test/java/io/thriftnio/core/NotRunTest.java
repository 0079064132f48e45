package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletionException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class NotRunTest {

  @Test
  void aRefusalIsInternalErrorWithThePrefix() {
    TApplicationException e = NotRun.exception("the server is draining (echo seqid 7)");
    assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(e.getMessage()).isEqualTo("not run: the server is draining (echo seqid 7)");
    assertThat(NotRun.isNotRun(e)).isTrue();
  }

  @Test
  void foundInsideWrappers() {
    Throwable wrapped =
        new CompletionException(new TException(NotRun.exception("server overloaded")));
    assertThat(NotRun.isNotRun(wrapped)).isTrue();
  }

  @Test
  void otherRepliesSayNothingAboutWhetherTheHandlerRan() {
    assertThat(NotRun.isNotRun(null)).isFalse();
    assertThat(
            NotRun.isNotRun(
                new TApplicationException(TApplicationException.INTERNAL_ERROR, "echo failed")))
        .isFalse();
    assertThat(NotRun.isNotRun(new TApplicationException(TApplicationException.INTERNAL_ERROR)))
        .isFalse();
    // The prefix counts only on INTERNAL_ERROR, the type the server refuses with.
    assertThat(
            NotRun.isNotRun(
                new TApplicationException(TApplicationException.UNKNOWN_METHOD, "not run: x")))
        .isFalse();
    assertThat(NotRun.isNotRun(new RuntimeException("not run: x"))).isFalse();
  }
}
