package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.net.SocketAddress;

/**
 * One way of carrying Thrift messages that a server recognises from a connection's first bytes: how
 * to tell it ({@link #detect}), and the decoder of a connection that speaks it ({@link
 * #newDecoder}). The {@link Sniffer} asks the kinds in its order; a kind is accepted when the
 * server accepts its {@link #wireKind()}.
 */
public abstract class WireFormat {

  /** {@link #detect}: the bytes are not this kind. */
  public static final int NO = 0;

  /** {@link #detect}: the bytes are this kind. */
  public static final int YES = 1;

  /** {@link #detect}: more bytes are needed to tell. */
  public static final int UNDECIDED = 2;

  private final String name;
  private final WireKind wireKind;

  /**
   * @param name the kind's name in log lines, e.g. {@code FRAMED}
   * @param wireKind the server setting that accepts it
   */
  protected WireFormat(String name, WireKind wireKind) {
    this.name = name;
    this.wireKind = wireKind;
  }

  /** The kind's name in log lines. */
  public final String name() {
    return name;
  }

  /** The server setting that accepts this kind ({@code ServerBuilder.wireKinds}). */
  public final WireKind wireKind() {
    return wireKind;
  }

  /**
   * Whether a connection's first bytes are this kind.
   *
   * @param in the buffered bytes
   * @param start the index of the connection's first byte
   * @param available the bytes buffered from {@code start}, at least 1
   * @return {@link #YES}, {@link #NO} or {@link #UNDECIDED}
   */
  public abstract int detect(ByteSource in, int start, int available);

  /** What bytes of this kind look like, for a refusal's log line: {@code "an HTTP request"}. */
  public abstract String looksLike();

  /**
   * The decoder of one server connection that speaks this kind.
   *
   * @param settings the server's limits
   * @param peer the remote address, for error messages
   */
  public abstract Decoder newDecoder(WireSettings settings, SocketAddress peer);

  /**
   * The envelope every request of a connection of this kind carries, or {@code null} when each
   * request carries its own. A kind with one envelope per connection lets a server look ahead for
   * the next whole request and send the replies of one read together.
   */
  public Envelope envelope() {
    return null;
  }

  @Override
  public String toString() {
    return name;
  }
}
