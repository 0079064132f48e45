package io.thriftnio.core.internal.server;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.Framing;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;

/**
 * The transports and protocols of {@link ProcessorInvoker}'s calls. A synchronous call borrows its
 * thread's set and gives it back when it completes, as stock servers reuse theirs per connection (a
 * libthrift protocol alone allocates a 256-byte array); only the reply's array is new per call,
 * since the reply leaves on its own. Replies start at about the size of the last one, so that a
 * steady workload builds them without growing arrays.
 */
final class Codecs {

  private static final int MIN_REPLY_CAPACITY = 64;
  private static final int MAX_REPLY_CAPACITY = 64 * 1024;

  /** One call's transports and protocols. */
  static final class Codec {
    final FrameInputTransport input;
    final FrameOutputTransport output;
    final TProtocol in;
    final TProtocol out;

    /** In use by a call on the owning thread; set and read by that thread only. */
    boolean busy;

    private Codec(Codecs codecs) throws TTransportException {
      input = new FrameInputTransport(codecs.configuration);
      output = FrameLength.output(codecs.configuration, codecs.replyCapacity);
      in = codecs.inputProtocolFactory.getProtocol(input);
      out = codecs.outputProtocolFactory.getProtocol(output);
    }
  }

  private final TConfiguration configuration;
  private final TProtocolFactory inputProtocolFactory;
  private final TProtocolFactory outputProtocolFactory;
  private final ThreadLocal<Codec> perThread = new ThreadLocal<>();

  /** Written without synchronisation: any recent value serves. */
  private int replyCapacity = MIN_REPLY_CAPACITY;

  Codecs(
      TConfiguration configuration,
      TProtocolFactory inputProtocolFactory,
      TProtocolFactory outputProtocolFactory) {
    this.configuration = configuration;
    this.inputProtocolFactory = inputProtocolFactory;
    this.outputProtocolFactory = outputProtocolFactory;
  }

  /** A set of its own, for a call that may complete on another thread. */
  Codec fresh() throws TTransportException {
    return new Codec(this);
  }

  /**
   * This thread's set, ready for a call; a new one if it is in use further up this thread's stack
   * (a call that completes inline may start the next waiting call).
   */
  Codec borrow() throws TTransportException {
    Codec codec = perThread.get();
    if (codec == null || codec.busy) {
      Codec fresh = new Codec(this);
      if (codec == null) {
        perThread.set(fresh);
      }
      codec = fresh;
    } else {
      codec.output.renew(replyCapacity);
      codec.in.reset();
      codec.out.reset();
    }
    codec.busy = true;
    return codec;
  }

  /**
   * Ends a synchronous call's use of {@code codec}. After a failure the set is dropped: protocols
   * left mid-message by a throwing handler are not trusted with the next call.
   */
  void giveBack(Codec codec, boolean clean) {
    codec.busy = false;
    codec.input.clear();
    if (!clean && perThread.get() == codec) {
      perThread.remove();
    }
  }

  /** A reply of {@code frameLength} bytes (prefix included) was built. */
  void replied(int frameLength) {
    int payload = frameLength - Framing.HEADER_SIZE;
    replyCapacity =
        Math.max(MIN_REPLY_CAPACITY, Math.min(payload + (payload >>> 3), MAX_REPLY_CAPACITY));
  }
}
