package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server connection's HTTP/1.1 requests ({@link WireKind#HTTP}), one Thrift message each: the
 * body of a whole request is handed out with an envelope that writes its answer's head; a {@code
 * Content-Length} body as a slice of the input, a chunked one assembled in an array of its own. A
 * {@code 100 Continue} that is due, a request refused ({@code 404}, {@code 405}) and a health probe
 * ({@code 200}, {@code 503}) are answers in request order, without a call; a request that breaks
 * the syntax or a limit is refused with its error response, and the connection closes after it.
 */
final class HttpRequestDecoder implements Decoder {

  private static final Logger log = LoggerFactory.getLogger(HttpRequestDecoder.class);

  /** HTTP requests: a request line starts with an upper-case method name. */
  static final WireFormat KIND =
      new WireFormat("HTTP", WireKind.HTTP) {
        @Override
        public int detect(ByteSource in, int start, int available) {
          int b = in.getByte(start) & 0xff;
          return b >= 'A' && b <= 'Z' ? YES : NO;
        }

        @Override
        public String looksLike() {
          return "an HTTP request";
        }

        @Override
        public Decoder newDecoder(WireSettings settings, SocketAddress peer) {
          return new HttpRequestDecoder(
              new HttpRequestParser(
                  settings.httpPath(),
                  settings.maxFrameSize(),
                  settings.healthPath(),
                  settings.serving()),
              peer);
        }
      };

  private final HttpRequestParser parser;
  private final SocketAddress peer;

  HttpRequestDecoder(HttpRequestParser parser, SocketAddress peer) {
    this.parser = parser;
    this.peer = peer;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    int length;
    try {
      length = parser.next(in, start, available);
    } catch (HttpParser.Failure e) {
      return out.refused(
          Refusal.answered(
              "HTTP request from " + peer + " refused with " + e.status + ": " + e.getMessage(),
              HttpResponses.error(e.status, e.getMessage(), false, false)));
    }
    if (length == HttpParser.NEED_MORE) {
      return parser.takeContinue()
          ? out.answer(0, HttpResponses.continue100(), false, false)
          : out.needMore();
    }
    boolean keepAlive = parser.keepAlive();
    if (parser.refusal() != 0) {
      boolean probe = parser.isHealthProbe();
      if (!probe) {
        log.debug("HTTP request from {} refused with {}", peer, parser.refusal());
      }
      WireEvent event = out.answer(length, parser.refusalResponse(), !probe, !keepAlive);
      parser.reset();
      return event;
    }
    WireEvent event;
    if (parser.chunked()) {
      byte[] body = new byte[parser.bodyLength()];
      parser.copyBody(in, start, body);
      event = out.message(length, body, parser.envelope());
    } else {
      event = out.message(length, parser.bodyStart(), parser.bodyLength(), parser.envelope());
    }
    if (!keepAlive) {
      out.closeAfter("the request ends the connection");
    }
    parser.reset();
    return event;
  }
}
