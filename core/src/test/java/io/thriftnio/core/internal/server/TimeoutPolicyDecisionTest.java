package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.internal.server.TimeoutPolicy.Clocks;
import io.thriftnio.core.internal.server.TimeoutPolicy.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The two halves of one decision agree: over a grid of settings and clock states, the next deadline
 * is exactly when the decision would first change if the clocks stood still. Deciding at {@code
 * next - 1} keeps the connection and says the same about its age; deciding at {@code next} closes
 * it or finds it aged, except for the one moment that is only a second look (the idle clock of a
 * busy connection, {@code idleTimeout} after the decision). Each rule's verdict is monotone in
 * time, so {@code next - 1} stands for every moment before it.
 */
@Timeout(30)
class TimeoutPolicyDecisionTest {

  private static final long MS = 1_000_000;
  private static final long NONE = TimeoutPolicy.NONE;
  private static final long T0 = 1_000_000 * MS;

  /** Far beyond every timeout of the grid: a decision that never looks again keeps until then. */
  private static final long LATER = 1_000_000 * MS;

  @Test
  void theNextDeadlineIsWhenTheDecisionFirstChanges() {
    List<String> wrong = new ArrayList<>();
    int decided = 0;
    int closedAtNext = 0;
    int agedAtNext = 0;
    for (Setting setting : settings()) {
      for (Clocks clocks : clockStates(setting.policy.agesConnections())) {
        decided++;
        Decision now = setting.policy.decide(T0, clocks);
        if (now.verdict() != null) {
          continue;
        }
        String what = setting + " " + clocks + " next=T0+" + (now.next() - T0);
        if (now.next() == Long.MAX_VALUE) {
          Decision later = setting.policy.decide(T0 + LATER, clocks);
          if (later.verdict() != null || later.aged() != now.aged()) {
            wrong.add(what + ": no next deadline, yet changes to " + later);
          }
          continue;
        }
        if (now.next() - T0 <= 0) {
          wrong.add(what + ": keeps, yet its next deadline is not after now");
          continue;
        }
        Decision before = setting.policy.decide(now.next() - 1, clocks);
        if (before.verdict() != null || before.aged() != now.aged()) {
          wrong.add(what + ": changes before its next deadline, at next - 1: " + before);
          continue;
        }
        Decision at = setting.policy.decide(now.next(), clocks);
        boolean secondLook = setting.idle > 0 && !isIdle(clocks) && now.next() == T0 + setting.idle;
        if (at.verdict() != null) {
          closedAtNext++;
        } else if (at.aged() != now.aged()) {
          agedAtNext++;
        } else if (!secondLook) {
          wrong.add(what + ": nothing changes at its next deadline: " + at);
        }
      }
    }
    assertThat(wrong).as("decisions whose next deadline disagrees with the verdict").isEmpty();
    // The grid reaches every kind of moment, not only a few.
    assertThat(decided).isGreaterThan(10_000);
    assertThat(closedAtNext).isGreaterThan(1_000);
    assertThat(agedAtNext).isGreaterThan(100);
  }

  private static boolean isIdle(Clocks clocks) {
    return clocks.partialSince() == NONE && clocks.pendingCalls() == 0;
  }

  /** One policy of the grid, with its idle timeout for the second look. */
  record Setting(TimeoutPolicy policy, long idle, String text) {
    @Override
    public String toString() {
      return text;
    }
  }

  private static List<Setting> settings() {
    List<Setting> settings = new ArrayList<>();
    long[] idles = {0, 300 * MS, 2_000 * MS}; // below and above the aged quiet period (1 s)
    long[] frames = {0, 100 * MS};
    long[] handshakes = {0, 50 * MS};
    Long[] ages = {null, 1_000 * MS};
    Long[] graces = {null, 0L, 200 * MS};
    for (long idle : idles) {
      for (long frame : frames) {
        for (long handshake : handshakes) {
          for (Long age : ages) {
            for (Long grace : graces) {
              if (age == null && grace != null) {
                continue;
              }
              TimeoutPolicy policy =
                  new TimeoutPolicy(
                      Duration.ofNanos(idle),
                      Duration.ofNanos(frame),
                      handshake == 0 ? null : Duration.ofNanos(handshake),
                      65536,
                      age == null ? null : Duration.ofNanos(age),
                      grace == null ? null : Duration.ofNanos(grace));
              String text =
                  "idle="
                      + idle / MS
                      + " frame="
                      + frame / MS
                      + " handshake="
                      + handshake / MS
                      + " age="
                      + (age == null ? "-" : age / MS)
                      + " grace="
                      + (grace == null ? "-" : grace / MS);
              settings.add(new Setting(policy, idle, text));
            }
          }
        }
      }
    }
    return settings;
  }

  /** Clock states around T0: each clock off, recent, or long past, on either side of a timeout. */
  private static List<Clocks> clockStates(boolean ages) {
    long[] lastActivities = {T0, T0 - 250 * MS, T0 - 900 * MS, T0 - 5_000 * MS};
    long[] partials = {NONE, T0, T0 - 60 * MS};
    long[] unwritables = {NONE, T0 - 30 * MS};
    int[] pendings = {0, 2};
    long[] handshakings = {NONE, T0 - 10 * MS};
    long[] agedAts =
        ages ? new long[] {T0 + 400 * MS, T0, T0 - 100 * MS, T0 - 3_000 * MS} : new long[] {NONE};
    List<Clocks> states = new ArrayList<>();
    for (long last : lastActivities) {
      for (long partial : partials) {
        for (long unwritable : unwritables) {
          for (int pending : pendings) {
            for (long handshaking : handshakings) {
              for (long agedAt : agedAts) {
                states.add(new Clocks(last, partial, unwritable, pending, handshaking, agedAt));
              }
            }
          }
        }
      }
    }
    return states;
  }
}
