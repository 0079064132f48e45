package io.thriftnio.testkit.fuzz;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.apache.thrift.TBase;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * What a fuzzing client sends a {@code BenchService} server: whole streams for one connection, of
 * these kinds, mixed at random:
 *
 * <ul>
 *   <li>valid calls (every method of {@code bench.thrift}, random arguments, oneway {@code fire}
 *       included), several per stream, pipelined;
 *   <li>a valid message header (a real method name) followed by random argument bytes, framed;
 *   <li>valid calls mutated (bit flips, truncation, insertion, deletion), with the frame length
 *       left as it was or fixed up to match the mutated payload;
 *   <li>random frames (valid length, random payload), bad lengths, random bytes.
 * </ul>
 */
public final class CallInputs {

  /** The methods of {@code BenchService}. */
  public static final List<String> METHODS =
      List.of("echo", "get_last_sale", "db_work", "get_nested", "sleep", "fail", "fire", "fired");

  private static final TConfiguration CONFIG = new TConfiguration();

  private CallInputs() {}

  /**
   * A random stream for one connection.
   *
   * @param random the generator
   * @param protocol the server's protocol
   * @param maxFrameSize the server's limit
   * @return the stream
   */
  public static FrameInputs.Stream next(Random random, TProtocolFactory protocol, int maxFrameSize)
      throws TException {
    switch (random.nextInt(10)) {
      case 8:
        {
          byte type = (byte) random.nextInt(6);
          return new FrameInputs.Stream(
              "valid call sent as message type " + type,
              RawConnection.frame(retyped(validCall(random, protocol), type, protocol)));
        }
      case 9:
        {
          // A length over the limit followed by a (possibly mutated) call: the server reads the
          // header from what arrived and answers it before closing.
          byte[] call = validCall(random, protocol);
          if (random.nextBoolean()) {
            call = Mutations.mutate(random, call);
          }
          int length = maxFrameSize + 1 + random.nextInt(1000);
          byte[] header = new byte[4];
          io.thriftnio.core.util.internal.Framing.encodeLength(length, header, 0);
          return new FrameInputs.Stream(
              "length " + length + " over the limit, then a call", concat(header, call));
        }
      case 0:
      case 1:
        {
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          int n = 1 + random.nextInt(3);
          for (int i = 0; i < n; i++) {
            out.writeBytes(RawConnection.frame(validCall(random, protocol)));
          }
          return new FrameInputs.Stream(n + " valid calls", out.toByteArray());
        }
      case 2:
        return new FrameInputs.Stream(
            "valid header, random arguments",
            RawConnection.frame(headerThenRandom(random, protocol)));
      case 3:
      case 4:
        return new FrameInputs.Stream(
            "valid call mutated, length fixed",
            RawConnection.frame(Mutations.mutate(random, validCall(random, protocol))));
      case 5:
        return new FrameInputs.Stream(
            "valid call mutated with its length",
            Mutations.mutate(random, RawConnection.frame(validCall(random, protocol))));
      case 6:
        return new FrameInputs.Stream(
            "valid call then random frame",
            concat(
                RawConnection.frame(validCall(random, protocol)),
                RawConnection.frame(FrameInputs.randomBytes(random, 1 + random.nextInt(64)))));
      default:
        return FrameInputs.next(random, maxFrameSize);
    }
  }

  /** One valid call payload (no length prefix) with random arguments. */
  public static byte[] validCall(Random random, TProtocolFactory protocol) throws TException {
    String method = METHODS.get(random.nextInt(METHODS.size()));
    int seqid = random.nextInt(4) == 0 ? random.nextInt() : random.nextInt(100);
    TBase<?, ?> args;
    switch (method) {
      case "echo":
        args =
            new BenchService.echo_args(
                ByteBuffer.wrap(FrameInputs.randomBytes(random, random.nextInt(200))));
        break;
      case "get_last_sale":
        args = new BenchService.get_last_sale_args(randomString(random));
        break;
      case "db_work":
        args = new BenchService.db_work_args(random.nextInt(30) - 5);
        break;
      case "get_nested":
        args = new BenchService.get_nested_args(random.nextInt(70) - 5);
        break;
      case "sleep":
        args = new BenchService.sleep_args(random.nextInt(4) - 1);
        break;
      case "fail":
        args = new BenchService.fail_args(random.nextInt(), randomString(random));
        break;
      case "fire":
        return RawConnection.encodeCall(
            protocol,
            method,
            TMessageType.ONEWAY,
            seqid,
            new BenchService.fire_args(
                ByteBuffer.wrap(FrameInputs.randomBytes(random, random.nextInt(100)))));
      default:
        args = new BenchService.fired_args();
        break;
    }
    return RawConnection.encodeCall(protocol, method, seqid, args);
  }

  /** {@code call} re-encoded with another message type; arguments unchanged. */
  static byte[] retyped(byte[] call, byte type, TProtocolFactory protocol) throws TException {
    FrameInputTransport source = FrameInputTransport.of(CONFIG, ByteBuffer.wrap(call));
    TMessage header = protocol.getProtocol(source).readMessageBegin();
    FrameOutputTransport t = FrameLength.output(CONFIG);
    protocol.getProtocol(t).writeMessageBegin(new TMessage(header.name, type, header.seqid));
    ByteBuffer h = t.payload();
    int consumed = call.length - source.remaining();
    byte[] out = new byte[h.remaining() + call.length - consumed];
    h.get(out, 0, h.remaining());
    System.arraycopy(
        call, consumed, out, out.length - (call.length - consumed), call.length - consumed);
    return out;
  }

  /** A valid message header for a real method, then random bytes as its arguments. */
  public static byte[] headerThenRandom(Random random, TProtocolFactory protocol)
      throws TException {
    String method = METHODS.get(random.nextInt(METHODS.size()));
    byte type = method.equals("fire") ? TMessageType.ONEWAY : TMessageType.CALL;
    FrameOutputTransport t = FrameLength.output(CONFIG);
    TProtocol p = protocol.getProtocol(t);
    p.writeMessageBegin(new TMessage(method, type, random.nextInt(100)));
    ByteBuffer header = t.payload();
    byte[] h = new byte[header.remaining()];
    header.get(h);
    return concat(h, FrameInputs.randomBytes(random, 1 + random.nextInt(64)));
  }

  private static String randomString(Random random) {
    int n = random.nextInt(20);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(
          (char)
              (random.nextInt(4) == 0
                  ? 0x80 + random.nextInt(0x700)
                  : 0x20 + random.nextInt(0x5f)));
    }
    return sb.toString();
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
