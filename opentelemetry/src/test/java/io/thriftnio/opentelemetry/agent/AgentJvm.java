package io.thriftnio.opentelemetry.agent;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child JVM running {@link AgentPeer} under the real OpenTelemetry Java agent (copied to {@code
 * target/otel-agent} by the build), its spans exported as OTLP JSON to its stderr and parsed here.
 */
final class AgentJvm implements AutoCloseable {

  /** A span the agent's JVM exported: ids in hex, kind as OTLP numbers it (2 server, 3 client). */
  record ExportedSpan(
      String traceId, String spanId, String parentSpanId, String name, int kind, String json) {
    boolean isServer() {
      return kind == 2;
    }

    boolean isClient() {
      return kind == 3;
    }
  }

  // One span of OTLP JSON: ids, then (optional) trace state and parent, then name and kind.
  private static final Pattern SPAN =
      Pattern.compile(
          "\\{\"traceId\":\"(\\w+)\",\"spanId\":\"(\\w+)\""
              + "(?:,\"traceState\":\"[^\"]*\")?(?:,\"parentSpanId\":\"(\\w*)\")?"
              + "(?:,\"flags\":\\d+)?,\"name\":\"([^\"]*)\",\"kind\":(\\d)");

  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
  private final List<String> stderr = new CopyOnWriteArrayList<>();
  private final List<ExportedSpan> spans = new CopyOnWriteArrayList<>();
  private final Map<String, Integer> ports = new HashMap<>();

  /**
   * Starts {@link AgentPeer} in {@code mode} with the agent and {@code agentSettings} ({@code -D}
   * names without the prefix), and waits for its servers' ports.
   */
  AgentJvm(String mode, String... agentSettings) throws IOException, InterruptedException {
    Path agent = Paths.get("target", "otel-agent", "opentelemetry-javaagent.jar").toAbsolutePath();
    if (!Files.isRegularFile(agent)) {
      throw new IllegalStateException(
          "no agent jar at " + agent + " (the build copies it in process-test-resources)");
    }
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-javaagent:" + agent);
    command.add("-XX:TieredStopAtLevel=1"); // a short-lived JVM: start fast
    command.add("-Dotel.service.name=agent-peer");
    command.add("-Dotel.traces.exporter=logging-otlp");
    command.add("-Dotel.metrics.exporter=none");
    command.add("-Dotel.logs.exporter=none");
    command.add("-Dotel.bsp.schedule.delay=20");
    for (String setting : agentSettings) {
      command.add("-D" + setting);
    }
    command.add("-cp");
    command.add(classPath());
    command.add(AgentPeer.class.getName());
    command.add(mode);
    process = new ProcessBuilder(command).start();
    stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    drain(process.getInputStream(), stdout::add, "agent-stdout");
    drain(process.getErrorStream(), this::stderrLine, "agent-stderr");
    while (true) {
      String line = stdout.poll(60, TimeUnit.SECONDS);
      if (line == null) {
        close();
        throw new IllegalStateException("the agent's JVM did not start; stderr:\n" + stderr());
      }
      if (line.equals("READY")) {
        break;
      }
      String[] words = line.split(" ");
      if (words[0].equals("LISTENING")) {
        ports.put(words[1], Integer.parseInt(words[2]));
      }
    }
  }

  private static String classPath() {
    String cp = System.getProperty("java.class.path");
    String modules = System.getProperty("jdk.module.path");
    return modules == null || modules.isEmpty() ? cp : cp + File.pathSeparator + modules;
  }

  private static void drain(InputStream in, java.util.function.Consumer<String> to, String name) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  to.accept(line);
                }
              } catch (IOException closed) {
                // the child ended
              }
            },
            name);
    t.setDaemon(true);
    t.start();
  }

  private void stderrLine(String line) {
    stderr.add(line);
    Matcher m = SPAN.matcher(line);
    boolean found = m.find();
    while (found) {
      String traceId = m.group(1);
      String spanId = m.group(2);
      String parent = m.group(3) == null ? "" : m.group(3);
      String name = m.group(4);
      int kind = Integer.parseInt(m.group(5));
      int start = m.start();
      found = m.find();
      // The span's own JSON, up to the next span's: its attributes and events, for checks.
      String json = line.substring(start, found ? m.start() : line.length());
      spans.add(new ExportedSpan(traceId, spanId, parent, name, kind, json));
    }
  }

  /** The port of the child's server {@code name} ({@code FRAMED}, ..., {@code nio}). */
  int port(String name) {
    Integer port = ports.get(name);
    if (port == null) {
      throw new IllegalArgumentException("no server " + name + " in " + ports);
    }
    return port;
  }

  /** Has the child's stock client call {@code get_last_sale} on {@code wire} at {@code port}. */
  void stockCall(String wire, int port) throws IOException, InterruptedException {
    stockCall("call", wire, port);
  }

  /**
   * Has the child's stock client call {@code db_work(-1)} on {@code wire} at {@code port}, which
   * the handler fails with an undeclared exception.
   */
  void stockFailingCall(String wire, int port) throws IOException, InterruptedException {
    stockCall("callfailing", wire, port);
  }

  private void stockCall(String command, String wire, int port)
      throws IOException, InterruptedException {
    stdin.write(command + " " + wire + " " + port + "\n");
    stdin.flush();
    String line = stdout.poll(30, TimeUnit.SECONDS);
    if (!("CALLED " + wire).equals(line)) {
      throw new IllegalStateException(
          "the stock client's call on " + wire + " gave " + line + "; stderr:\n" + stderr());
    }
  }

  /** Waits up to 30 s for the spans {@code matching} to reach {@code count}; returns them. */
  List<ExportedSpan> awaitSpans(Predicate<ExportedSpan> matching, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      List<ExportedSpan> found = spans.stream().filter(matching).toList();
      if (found.size() >= count || System.nanoTime() > deadline) {
        return found;
      }
      Thread.sleep(10); // polling the child's output, which arrives when its exporter runs
    }
  }

  /** Every span exported so far. */
  List<ExportedSpan> spans() {
    return List.copyOf(spans);
  }

  String stderr() {
    return String.join("\n", stderr);
  }

  @Override
  public void close() throws InterruptedException {
    try {
      stdin.write("exit\n");
      stdin.flush();
    } catch (IOException gone) {
      // already ended
    }
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
