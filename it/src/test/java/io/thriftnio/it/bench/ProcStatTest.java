package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Parsing {@code /proc/PID/stat} and CPU lists. */
class ProcStatTest {

  @Test
  void cpuTicksAreUtimePlusStimeCountedFromTheLastParenthesis() {
    // A command name with a space and a ')' in it: fields count from the last ')'.
    String line =
        "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 12345 0 3 0 "
            + "1500 250 7 9 20 0 31 0 987654 4096000000 50000 18446744073709551615";
    assertThat(ProcStat.cpuTicks(line)).isEqualTo(1750);
  }

  @Test
  void aLineThatIsNotAStatLineIsRejectedWithWhatWasWrong() {
    assertThatThrownBy(() -> ProcStat.cpuTicks("no parenthesis here"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stat line");
    assertThatThrownBy(() -> ProcStat.cpuTicks("1 (java) S 1 2 3"))
        .hasMessageContaining("fields after the command (expected: >= 13)");
    assertThatThrownBy(() -> ProcStat.cpuTicks("1 (java) S 1 1 1 0 -1 0 0 0 0 0 x 2 0 0"))
        .hasMessageContaining("utime 'x'");
  }

  @Test
  void thisProcessHasUsedSomeCpu() {
    Assumptions.assumeTrue(Files.exists(Paths.get("/proc/self/stat")), "Linux /proc only");
    long pid = ProcessHandle.current().pid();
    long before = ProcStat.cpuNanos(pid);
    long x = 0;
    for (long end = System.nanoTime() + 100_000_000L; System.nanoTime() < end; ) {
      x += Long.numberOfTrailingZeros(System.nanoTime() | 1) + 1;
    }
    assertThat(x).isPositive();
    assertThat(before).isPositive();
    assertThat(ProcStat.cpuNanos(pid)).isGreaterThan(before);
    assertThat(ProcStat.cpuNanos(Long.MAX_VALUE)).isEqualTo(-1);
  }

  @Test
  void busyTicksOfACpuLineLeaveOutIdleAndIowait() {
    // user nice system idle iowait irq softirq steal guest guest_nice
    assertThat(ProcStat.busyTicks("cpu1 100 2 30 9000 40 5 6 7 0 0")).isEqualTo(150);
    assertThatThrownBy(() -> ProcStat.busyTicks("intr 1 2 3"))
        .hasMessageContaining("cpu line: 'intr 1 2 3'");
    Assumptions.assumeTrue(Files.exists(Paths.get("/proc/stat")), "Linux /proc only");
    assertThat(ProcStat.cpuBusyNanos(0)).isPositive();
    assertThat(ProcStat.cpuBusyNanos(100_000)).isEqualTo(-1);
  }

  @Test
  void cpuListsExpandRanges() {
    assertThat(ProcStat.parseCpuList("0-1\n")).containsExactly(0, 1);
    assertThat(ProcStat.parseCpuList("0,2-4,7")).containsExactly(0, 2, 3, 4, 7);
    assertThat(ProcStat.parseCpuList(" ")).isEmpty();
    assertThatThrownBy(() -> ProcStat.parseCpuList("3-1")).hasMessageContaining("cpu list: 3-1");
    assertThatThrownBy(() -> ProcStat.parseCpuList("a")).hasMessageContaining("cpu list: a");
  }
}
