package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** What the peer does where Python is missing, and how it reads the pins; needs no Python. */
class PythonPeerSetupTest {

  @TempDir Path dir;

  @Test
  void aMissingPythonSkipsUnlessRequiredThenFails() {
    assertThatThrownBy(() -> PythonPeer.skipOrFail("no python3 on PATH", false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("no python3 on PATH")
        .hasMessageContaining("thriftnio.requirePython=true");
    assertThatThrownBy(() -> PythonPeer.skipOrFail("no python3 on PATH", true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("no python3 on PATH")
        .hasMessageContaining("required by");
  }

  @Test
  void findsNoInterpreterOnAPathWithoutOne() {
    Path empty = dir.resolve("empty-bin");
    assertThatThrownBy(() -> PythonEnvironment.findInterpreter(null, empty.toString(), dir))
        .isInstanceOf(PythonEnvironment.UnavailableException.class)
        .hasMessageContaining("no python3 or python on PATH")
        .hasMessageContaining(empty.toString());
  }

  @Test
  void rejectsAnExplicitInterpreterThatDoesNotRun() {
    String missing = dir.resolve("no-such-python3").toString();
    assertThatThrownBy(() -> PythonEnvironment.findInterpreter(missing, "", dir))
        .isInstanceOf(PythonEnvironment.UnavailableException.class)
        .hasMessageContaining(missing);
  }

  @Test
  void readsThePinsOfRequirementsTxt() throws Exception {
    Path requirements = dir.resolve("requirements.txt");
    Files.writeString(requirements, "# comment\nthrift==0.25.0\n\nsix==1.17.0  \n");
    assertThat(PythonEnvironment.pins(requirements))
        .containsExactly(Map.entry("thrift", "0.25.0"), Map.entry("six", "1.17.0"));

    Files.writeString(requirements, "thrift>=0.25\n");
    assertThatThrownBy(() -> PythonEnvironment.pins(requirements))
        .hasMessageContaining("pins no package");
  }

  @Test // issue 8: the official Python package, pinned to the libthrift line the library builds on
  void theCheckedInRequirementsPinThrift() throws Exception {
    Path itDir = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    assertThat(PythonEnvironment.pins(itDir.resolve("src/test/python/requirements.txt")))
        .hasEntrySatisfying("thrift", v -> assertThat(v).startsWith("0.25."));
  }
}
