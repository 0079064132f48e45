package io.thriftnio.core.wire;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reading half every {@link ClientCodec} shares: one connection's reply decoder stepped over
 * the bytes read, and whether the connection still reads (a refused reply or a server that ends the
 * connection stops it). A kind that carries something beside the reply (headers, a sequence id)
 * takes it in {@link #delivered()}. Reading thread only, but for {@link #rejected()}.
 */
abstract class ReplyReader implements ClientCodec {

  private static final Logger log = LoggerFactory.getLogger(ReplyReader.class);

  private final Decoder decoder;
  private final String peer;
  private final Decoded decoded = new Decoded();
  private volatile boolean rejected;

  /**
   * @param decoder the kind's reply decoder
   * @param peer the server, for the log line of a refusal and the codec's {@code toString}
   */
  ReplyReader(Decoder decoder, String peer) {
    this.decoder = decoder;
    this.peer = peer;
  }

  @Override
  public final WireEvent next(ByteSource in, int start, int available) {
    if (rejected) {
      return decoded.needMore();
    }
    return done(decoder.decode(in, start, available, decoded));
  }

  @Override
  public final WireEvent endOfStream(ByteSource in, int start, int available) {
    if (rejected) {
      return decoded.needMore();
    }
    return done(decoder.endOfStream(in, start, available, decoded));
  }

  @Override
  public final Decoded decoded() {
    return decoded;
  }

  @Override
  public final boolean rejected() {
    return rejected;
  }

  /**
   * A reply was decoded ({@code MESSAGE}): a kind that carries headers or a sequence id with it
   * takes them from its decoder here. Nothing by default.
   */
  void delivered() {}

  /** The server as every message of this library writes it. */
  final String peer() {
    return peer;
  }

  private WireEvent done(WireEvent event) {
    if (event == WireEvent.REFUSED) {
      rejected = true;
      log.warn("Closing connection to {}: {}", peer, decoded.refusal().reason());
      return event;
    }
    if (decoded.closeAfter() != null) {
      rejected = true;
    }
    if (event == WireEvent.MESSAGE) {
      delivered();
    }
    return event;
  }

  @Override
  public String toString() {
    return "ClientCodec{" + wireKind() + ", " + peer + "}";
  }
}
