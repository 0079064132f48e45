package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * What a server's connections are decoded with: the limit, the kinds accepted, the protocol of an
 * oversize frame's header, the HTTP path and health probe. Immutable; one per server, shared by its
 * connections.
 */
public final class WireSettings {

  /** Nesting accepted by an unframed walk: libthrift's default recursion limit. */
  public static final int MAX_DEPTH = 64;

  private final int maxFrameSize;
  private final Set<WireKind> accepted;
  private final TProtocolFactory headerProtocol;
  private final String httpPath;
  private final List<WireFormat> kinds;
  private final String healthPath;
  private final BooleanSupplier serving;
  private final boolean probesOnly;
  private final SaslSettings sasl;

  private WireSettings(
      int maxFrameSize,
      Set<WireKind> accepted,
      TProtocolFactory headerProtocol,
      String httpPath,
      List<WireFormat> kinds,
      String healthPath,
      BooleanSupplier serving,
      boolean probesOnly,
      SaslSettings sasl) {
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    Objects.requireNonNull(accepted, "accepted");
    if (accepted.isEmpty()) {
      throw new IllegalArgumentException("accepted: [] (expected: at least one transport)");
    }
    this.accepted = Collections.unmodifiableSet(EnumSet.copyOf(accepted));
    this.headerProtocol = headerProtocol;
    this.httpPath = Objects.requireNonNull(httpPath, "httpPath");
    this.kinds = List.copyOf(kinds);
    this.healthPath = healthPath;
    this.serving = healthPath == null ? null : Objects.requireNonNull(serving, "serving");
    this.probesOnly = probesOnly;
    this.sasl = sasl;
  }

  /**
   * Settings with every kind of this package.
   *
   * @param maxFrameSize the largest message accepted, in bytes; positive
   * @param accepted the transports the server accepts; not empty
   * @param headerProtocol the protocol of the requests, used to read the message header of an
   *     oversize frame so that it can be answered; {@code null} to skip that
   * @param httpPath the path HTTP peers post to, e.g. {@code /}
   * @throws IllegalArgumentException if {@code maxFrameSize <= 0} or nothing is accepted
   */
  public static WireSettings of(
      int maxFrameSize, Set<WireKind> accepted, TProtocolFactory headerProtocol, String httpPath) {
    return new WireSettings(
        maxFrameSize, accepted, headerProtocol, httpPath, Sniffer.KINDS, null, null, false, null);
  }

  /**
   * These settings with other kinds, asked in the order given (a test's kind, say).
   *
   * @param kinds the kinds; each is accepted when its transport is
   */
  public WireSettings withKinds(List<WireFormat> kinds) {
    return new WireSettings(
        maxFrameSize,
        accepted,
        headerProtocol,
        httpPath,
        kinds,
        healthPath,
        serving,
        probesOnly,
        sasl);
  }

  /**
   * These settings with a health probe for HTTP peers: a {@code GET} on {@code healthPath} is
   * answered {@code 200} while {@code serving} says so, else {@code 503}, without a call.
   *
   * @param healthPath the probe's path, e.g. {@code /health}; {@code null} for no probe
   * @param serving asked on the IO thread at each probe, so cheap and non-blocking; not null with a
   *     path
   */
  public WireSettings withHealth(String healthPath, BooleanSupplier serving) {
    return new WireSettings(
        maxFrameSize, accepted, headerProtocol, httpPath, kinds, healthPath, serving, false, sasl);
  }

  /**
   * These settings for a connection accepted while the server drains (issue 28): it is served for
   * the health probe only. A {@code GET} on the health path is answered {@code 503} and the
   * connection closes after it; any other first bytes (a frame, another HTTP request) close it at
   * once, unanswered and not counted as a bad request.
   *
   * @throws IllegalStateException without a health path: such a server has no probe connections
   */
  public WireSettings forProbes() {
    if (healthPath == null) {
      throw new IllegalStateException("forProbes(): no healthPath (expected: a health probe)");
    }
    return new WireSettings(
        maxFrameSize,
        accepted,
        headerProtocol,
        httpPath,
        kinds,
        healthPath,
        () -> false,
        true,
        sasl);
  }

  /** Whether these are {@link #forProbes()} settings. */
  public boolean probesOnly() {
    return probesOnly;
  }

  /**
   * These settings with a server's SASL settings, which {@link WireKind#SASL} connections negotiate
   * with.
   *
   * @param sasl the settings; {@code null} when SASL is not accepted
   * @throws IllegalArgumentException if SASL is accepted and {@code sasl} is {@code null}
   */
  public WireSettings withSasl(SaslSettings sasl) {
    if (sasl == null && accepted.contains(WireKind.SASL)) {
      throw new IllegalArgumentException("sasl: null (expected: set when accepted has SASL)");
    }
    return new WireSettings(
        maxFrameSize,
        accepted,
        headerProtocol,
        httpPath,
        kinds,
        healthPath,
        serving,
        probesOnly,
        sasl);
  }

  /** The SASL settings, or {@code null} when SASL is not accepted. */
  public SaslSettings sasl() {
    return sasl;
  }

  /** The path of the health probe, or {@code null} for none. */
  public String healthPath() {
    return healthPath;
  }

  /** Whether the server serves, as the health probe answers; {@code null} without a probe. */
  public BooleanSupplier serving() {
    return serving;
  }

  /** The largest message accepted, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /** The transports accepted. */
  public Set<WireKind> accepted() {
    return accepted;
  }

  /** The protocol an oversize frame's header is read with, or {@code null}. */
  public TProtocolFactory headerProtocol() {
    return headerProtocol;
  }

  /** The path HTTP peers post to. */
  public String httpPath() {
    return httpPath;
  }

  /** The kinds, in the order the sniffer asks them. */
  public List<WireFormat> kinds() {
    return kinds;
  }

  @Override
  public String toString() {
    return "WireSettings{maxFrameSize=" + maxFrameSize + ", accepted=" + accepted + "}";
  }
}
