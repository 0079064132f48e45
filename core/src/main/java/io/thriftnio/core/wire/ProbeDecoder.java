package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decoder of a connection accepted while its server drains ({@link WireSettings#forProbes()},
 * issue 28): the listening socket stays open through the drain so that a Kubernetes {@code httpGet}
 * probe reads {@code 503}, not "connection refused", and such a connection is served for that probe
 * alone.
 *
 * <pre>
 * first request                      answer                         then
 * GET /health HTTP/1.1 ...           503 draining, Connection: close  closed after it
 * anything else: a frame, a POST,    none                             closed at once (DEBUG line)
 *   another GET, malformed HTTP
 * </pre>
 *
 * <p>Nothing else is ever read: the probe's answer ends the connection, and a refusal is no peer's
 * fault (a client that connected while the server drains), so it is neither logged at WARN nor
 * counted as a bad request. A non-probe is told from the first byte (not a request line) or from
 * the header section, never waiting for a body; the server's frame and idle timeouts bound a peer
 * that sends too little, and the drain's end closes whatever is left.
 */
final class ProbeDecoder implements Decoder {

  private static final Logger log = LoggerFactory.getLogger(ProbeDecoder.class);

  /** The kind of a probe connection: HTTP requests, one answered. */
  static final WireFormat KIND =
      new WireFormat("HTTP health probe", WireKind.HTTP) {
        @Override
        public int detect(ByteSource in, int start, int available) {
          return HttpRequestDecoder.KIND.detect(in, start, available);
        }

        @Override
        public String looksLike() {
          return "an HTTP health probe";
        }

        @Override
        public Decoder newDecoder(WireSettings settings, SocketAddress peer) {
          return new ProbeDecoder(settings, peer);
        }
      };

  private final String healthPath;
  private final HttpRequestParser parser;
  private final SocketAddress peer;
  private boolean firstByteSeen;

  ProbeDecoder(WireSettings settings, SocketAddress peer) {
    this.healthPath = settings.healthPath();
    // No Thrift path: every request but the probe is refused as its header section ends.
    this.parser = new HttpRequestParser(null, settings.maxFrameSize(), healthPath, () -> false);
    this.peer = peer;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    if (available == 0) {
      return out.needMore();
    }
    if (!firstByteSeen) {
      firstByteSeen = true;
      if (KIND.detect(in, start, available) != WireFormat.YES) {
        return notAProbe(out, available, "its first bytes " + hex(in, start, available));
      }
    }
    int length;
    try {
      length = parser.next(in, start, available);
    } catch (HttpParser.Failure e) {
      return notAProbe(out, available, "an HTTP request refused with " + e.status);
    }
    if (length == HttpParser.NEED_MORE) {
      return out.needMore();
    }
    if (!parser.isHealthProbe()) {
      return notAProbe(out, available, "an HTTP request other than GET " + healthPath);
    }
    return out.answer(length, HttpResponses.error(503, "draining", false, false), false, true);
  }

  /** Closes the connection without an answer: nothing is sent, and nothing after is read. */
  private WireEvent notAProbe(Decoded out, int available, String what) {
    log.debug(
        "Closing connection from {}: accepted while the server drains, it is served for the health"
            + " probe only, and it sent {}",
        peer,
        what);
    return out.answer(available, null, false, true);
  }

  private static String hex(ByteSource in, int start, int available) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(4, available); i++) {
      sb.append(i == 0 ? "" : " ").append(String.format("%02x", in.getByte(start + i) & 0xff));
    }
    return sb.toString();
  }
}
