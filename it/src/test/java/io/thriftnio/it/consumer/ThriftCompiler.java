package io.thriftnio.it.consumer;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Thrift compiler a test may use: {@code $THRIFT}, else {@code thrift} on the {@code PATH};
 * nothing else. Its Java output must compile against the libthrift the library is built with, which
 * rules out compilers older than 0.24.0 (Debian 12's 0.17.0 generates async clients against a
 * {@code TAsyncMethodCall} that libthrift 0.25 no longer has). Those compilers all know the {@code
 * future_iface} option the test generates with.
 */
record ThriftCompiler(Path executable, String version) {

  /** The oldest compiler whose Java output this build tests (the project's own code uses it). */
  static final String OLDEST = "0.24.0";

  private static final Pattern VERSION = Pattern.compile("Thrift version (\\d+)\\.(\\d+)\\.(\\d+)");

  /**
   * The compiler to use, or why there is none.
   *
   * @return the compiler, or empty with {@code why} filled in
   */
  static Optional<ThriftCompiler> find(StringBuilder why) throws Exception {
    String env = System.getenv("THRIFT");
    Path exe = env != null && !env.isBlank() ? Path.of(env) : onPath("thrift");
    if (exe == null) {
      why.append("no Thrift compiler: THRIFT is not set and there is no thrift on the PATH");
      return Optional.empty();
    }
    Process p = new ProcessBuilder(exe.toString(), "--version").redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    p.waitFor(30, TimeUnit.SECONDS);
    Matcher m = VERSION.matcher(out);
    if (!m.find()) {
      why.append(exe).append(" --version printed no version: ").append(out);
      return Optional.empty();
    }
    String version = m.group(1) + "." + m.group(2) + "." + m.group(3);
    if (Integer.parseInt(m.group(1)) == 0 && Integer.parseInt(m.group(2)) < 24) {
      why.append(exe)
          .append(" is Thrift ")
          .append(version)
          .append("; the first-service test needs ")
          .append(OLDEST)
          .append(" or newer (set THRIFT to one)");
      return Optional.empty();
    }
    return Optional.of(new ThriftCompiler(exe, version));
  }

  private static Path onPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, name);
      if (!dir.isEmpty() && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}
