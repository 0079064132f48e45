package io.thriftnio.it.python;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of {@code bench_client.py}: its exit code and output. The last stdout line is a JSON
 * summary with sorted keys, e.g. {@code {"calls": 30, "checks_failed": 0, ..., "ok": true}}.
 */
public final class ClientRun {

  private final Processes.Result result;

  ClientRun(Processes.Result result) {
    this.result = result;
  }

  /** 0 when every check passed; -1 when the run was killed at its timeout. */
  public int exitCode() {
    return result.exitCode();
  }

  /** Whether the client exited 0 within its timeout. */
  public boolean passed() {
    return result.succeeded();
  }

  /** Everything the client printed on stdout. */
  public String stdout() {
    return result.stdout();
  }

  /** Everything the client printed on stderr: one line per failed check. */
  public String stderr() {
    return result.stderr();
  }

  /**
   * A value of the summary line, if present: the raw JSON text of a number or boolean ({@code
   * "640"}, {@code "true"}), or a string's content without its quotes.
   */
  public Optional<String> summaryValue(String key) {
    Matcher m =
        Pattern.compile(
                "\"" + Pattern.quote(key) + "\": (?:\"([^\"]*)\"|(-?[0-9.]+|true|false|null))")
            .matcher(result.stdout());
    if (!m.find()) {
      return Optional.empty();
    }
    return Optional.of(m.group(1) != null ? m.group(1) : m.group(2));
  }

  /** The command, exit code and output, for assertion messages. */
  @Override
  public String toString() {
    return result.describe();
  }
}
