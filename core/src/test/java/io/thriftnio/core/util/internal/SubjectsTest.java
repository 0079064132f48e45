package io.thriftnio.core.util.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import javax.security.auth.Subject;
import javax.security.sasl.SaslException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SubjectsTest {

  @Test
  void withoutASubjectTheActionRunsDirectly() throws Exception {
    assertThat(Subjects.call(null, () -> "ran")).isEqualTo("ran");
  }

  @Test
  void asASubjectTheActionsResultComesBack() throws Exception {
    assertThat(Subjects.call(new Subject(), () -> 42)).isEqualTo(42);
  }

  @Test
  void theActionsOwnExceptionComesOutUnwrapped() {
    SaslException thrown = new SaslException("no credentials");
    assertThatThrownBy(
            () ->
                Subjects.call(
                    new Subject(),
                    () -> {
                      throw thrown;
                    }))
        .isSameAs(thrown);
    IOException io = new IOException("read failed");
    assertThatThrownBy(
            () ->
                Subjects.call(
                    new Subject(),
                    () -> {
                      throw io;
                    }))
        .isSameAs(io);
    IllegalStateException unchecked = new IllegalStateException("bug");
    assertThatThrownBy(
            () ->
                Subjects.call(
                    new Subject(),
                    () -> {
                      throw unchecked;
                    }))
        .isSameAs(unchecked);
  }
}
