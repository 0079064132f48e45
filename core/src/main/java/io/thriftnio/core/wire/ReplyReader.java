package io.thriftnio.core.wire;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reading half every {@link ClientCodec} shares: one connection's reply decoder stepped over
 * the bytes read, and whether the connection still reads (a refused reply or a server that ends the
 * connection stops it). Reading thread only, but for {@link #rejected()}.
 */
final class ReplyReader {

  private static final Logger log = LoggerFactory.getLogger(ReplyReader.class);

  private final Decoder decoder;
  private final String peer;
  private final Decoded decoded = new Decoded();
  private volatile boolean rejected;

  /**
   * @param decoder the kind's reply decoder
   * @param peer the server, for the log line of a refusal
   */
  ReplyReader(Decoder decoder, String peer) {
    this.decoder = decoder;
    this.peer = peer;
  }

  WireEvent next(ByteSource in, int start, int available) {
    if (rejected) {
      return decoded.needMore();
    }
    return done(decoder.decode(in, start, available, decoded));
  }

  WireEvent endOfStream(ByteSource in, int start, int available) {
    if (rejected) {
      return decoded.needMore();
    }
    return done(decoder.endOfStream(in, start, available, decoded));
  }

  Decoded decoded() {
    return decoded;
  }

  boolean rejected() {
    return rejected;
  }

  private WireEvent done(WireEvent event) {
    if (event == WireEvent.REFUSED) {
      rejected = true;
      log.warn("Closing connection to {}: {}", peer, decoded.refusal().reason());
    } else if (decoded.closeAfter() != null) {
      rejected = true;
    }
    return event;
  }
}
