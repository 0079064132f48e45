package io.thriftnio.core.internal.client;

import io.thriftnio.core.HttpStatusException;
import io.thriftnio.core.internal.server.HttpResponseReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.apache.thrift.transport.TTransportException;

/**
 * The HTTP side of a pipelined channel, the same on every IO adapter: the head written before each
 * message, and the responses read from the connection's bytes, matched to the calls in order.
 *
 * <pre>
 *  exchange(a) send(b, oneway) exchange(c)
 *     -&gt; POST a, POST b, POST c      one keep-alive connection, pipelined
 *     &lt;- 200 A, 200 (empty), 500 C   HTTP/1.1 answers in order: A completes a, the empty 200 is
 *                                   b's (its future completed when written), c fails with an
 *                                   {@link HttpStatusException}
 * </pre>
 *
 * <p>A response that ends the connection ({@code Connection: close}, HTTP/1.0, a body up to the end
 * of the stream) closes the channel once it is delivered: calls still waiting fail with a message
 * saying so, and a pool replaces the channel. A response that cannot be read closes the channel
 * with {@code CORRUPTED_DATA}. The adapter writes {@link #head} and the message in write order and
 * feeds {@link #onBytes} and {@link #onEndOfStream} from its IO thread. Not part of the API.
 */
public final class HttpChannelCodec {

  private final InetSocketAddress address;
  private final HttpCalls http;
  private final HttpResponseReader reader;
  private final PipelinedCalls calls;

  /** Per request written and not yet answered: whether it was oneway. */
  private final ArrayDeque<Boolean> expected = new ArrayDeque<>();

  /**
   * @param address the server
   * @param path the path calls are posted to
   * @param maxFrameSize the largest response body, in bytes
   * @param calls the channel's call table
   */
  public HttpChannelCodec(
      InetSocketAddress address, String path, int maxFrameSize, PipelinedCalls calls) {
    this.address = address;
    this.http = new HttpCalls(address, path);
    this.reader = new HttpResponseReader(maxFrameSize);
    this.calls = calls;
  }

  /** The head of the next request, whose body is {@code bodyLength} bytes; in write order. */
  public byte[] head(int bodyLength, boolean oneway) {
    byte[] head = new byte[http.headLength(bodyLength)];
    http.writeHead(bodyLength, head, 0);
    synchronized (expected) {
      expected.add(oneway);
    }
    return head;
  }

  /**
   * Reads the whole responses among the connection's bytes and hands them to the calls.
   *
   * @param bytes the connection's buffered bytes
   * @param start index of the first unconsumed byte
   * @param available bytes buffered from {@code start}
   * @return the bytes consumed (whole responses); {@code -1} once the channel is closed
   */
  public int onBytes(HttpResponseReader.BulkSource bytes, int start, int available) {
    int consumed = 0;
    while (consumed < available) {
      int length;
      try {
        length = reader.next(bytes, start + consumed, available - consumed);
      } catch (HttpResponseReader.Malformed e) {
        TTransportException failure = http.malformed(e);
        calls.close(failure.getMessage(), failure);
        return -1;
      }
      if (length == HttpResponseReader.NEED_MORE) {
        return consumed;
      }
      if (!deliver(bytes, start + consumed)) {
        return -1;
      }
      consumed += length;
    }
    return consumed;
  }

  /**
   * The connection ended with {@code available} unconsumed bytes from {@code start}: a body that
   * runs to the end of the stream is delivered, a response cut short closes the channel saying
   * where. The adapter then reports the end as for any channel.
   */
  public void onEndOfStream(HttpResponseReader.BulkSource bytes, int start, int available) {
    if (available == 0 && !reader.inProgress()) {
      return;
    }
    try {
      reader.endOfStream(available);
    } catch (HttpResponseReader.Malformed e) {
      TTransportException failure = http.malformed(e);
      calls.close(failure.getMessage(), failure);
      return;
    }
    deliver(bytes, start);
  }

  /** Hands the whole response at {@code start} to its call; false once the channel closed. */
  private boolean deliver(HttpResponseReader.BulkSource bytes, int start) {
    Boolean oneway;
    synchronized (expected) {
      oneway = expected.poll();
    }
    if (oneway == null) {
      calls.close("a response arrived with no call pending", null);
      return false;
    }
    try {
      http.checkStatus(reader, bytes, start);
      if (!oneway) {
        byte[] body = new byte[reader.bodyLength()];
        reader.copyBody(bytes, start, body);
        calls.onResponse(ByteBuffer.wrap(body));
      }
      // A oneway call's 200 completes nothing: its future completed when it was written.
    } catch (HttpStatusException e) {
      if (!oneway) {
        calls.onFailedResponse(e);
      }
      // A oneway call's caller has had its answer (written); a refusal of it has no one to tell,
      // and the calls behind it are unaffected, so the channel carries on.
    }
    boolean keepAlive = reader.keepAlive();
    int status = reader.status();
    reader.reset();
    if (!keepAlive) {
      calls.close(
          "the server ended the connection after a " + status + " response (Connection: close)",
          null);
      return false;
    }
    return true;
  }

  /** The server, as the caller named it. */
  public InetSocketAddress address() {
    return address;
  }
}
