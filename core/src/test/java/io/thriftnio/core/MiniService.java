package io.thriftnio.core;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.server.AbstractNonblockingServer.AsyncFrameBuffer;

/**
 * A hand-written one-field service for core tests (core cannot use the generated bench code).
 * Requests carry {@code struct { 1: string text }}, replies {@code struct { 0: string success }}.
 *
 * <p>Methods: {@code echo} replies with its text, {@code upper} with its text upper-cased, {@code
 * oneway} replies nothing, {@code big} replies with {@code text} repeated 1000 times, {@code
 * header} with the request header named {@code text} ({@code <none>} if absent), {@code respond}
 * sets the reply header {@code text} names ({@code "name=value"}) and replies {@code ok}, {@code
 * remaining} replies whether the call has time left ({@code positive}, {@code passed} or {@code
 * <none>}), {@code throw} throws {@link IllegalStateException}, {@code error} throws {@link
 * AssertionError}, {@code overflow} overflows the stack. Anything else is answered {@code
 * UNKNOWN_METHOD}, as generated processors do.
 */
final class MiniService {
  private MiniService() {}

  static final TConfiguration CONFIG = new TConfiguration();

  /** Encodes a request message (no length prefix). */
  static ByteBuffer request(TProtocolFactory f, String method, byte type, int seqid, String text)
      throws TException {
    FrameOutputTransport t = FrameLength.output(CONFIG);
    TProtocol p = f.getProtocol(t);
    p.writeMessageBegin(new TMessage(method, type, seqid));
    p.writeStructBegin(new TStruct("args"));
    p.writeFieldBegin(new TField("text", TType.STRING, (short) 1));
    p.writeString(text);
    p.writeFieldEnd();
    p.writeFieldStop();
    p.writeStructEnd();
    p.writeMessageEnd();
    ByteBuffer payload = t.payload();
    return ByteBuffer.wrap(payload.array(), payload.position(), payload.remaining()).slice();
  }

  static ByteBuffer call(TProtocolFactory f, String method, int seqid, String text)
      throws TException {
    return request(f, method, TMessageType.CALL, seqid, text);
  }

  /** A decoded reply. */
  record Reply(TMessage header, String success, TApplicationException exception) {}

  /** Decodes a response frame (length prefix included), checking that the prefix matches. */
  static Reply decode(TProtocolFactory f, ByteBuffer frame) throws TException {
    ByteBuffer b = frame.duplicate();
    int length = b.getInt();
    if (length != b.remaining()) {
      throw new AssertionError("length prefix " + length + " but " + b.remaining() + " bytes");
    }
    TProtocol p = f.getProtocol(FrameInputTransport.of(CONFIG, b.slice()));
    TMessage m = p.readMessageBegin();
    if (m.type == TMessageType.EXCEPTION) {
      TApplicationException x = TApplicationException.readFrom(p);
      p.readMessageEnd();
      return new Reply(m, null, x);
    }
    String success = readText(p, (short) 0);
    p.readMessageEnd();
    return new Reply(m, success, null);
  }

  static String readText(TProtocol p, short id) throws TException {
    String text = null;
    p.readStructBegin();
    while (true) {
      TField field = p.readFieldBegin();
      if (field.type == TType.STOP) {
        break;
      }
      if (field.id == id && field.type == TType.STRING) {
        text = p.readString();
      } else {
        TProtocolUtil.skip(p, field.type);
      }
      p.readFieldEnd();
    }
    p.readStructEnd();
    return text;
  }

  static void writeReply(TProtocol out, TMessage request, String success) throws TException {
    out.writeMessageBegin(new TMessage(request.name, TMessageType.REPLY, request.seqid));
    out.writeStructBegin(new TStruct("result"));
    out.writeFieldBegin(new TField("success", TType.STRING, (short) 0));
    out.writeString(success);
    out.writeFieldEnd();
    out.writeFieldStop();
    out.writeStructEnd();
    out.writeMessageEnd();
    out.getTransport().flush();
  }

  static void writeUnknownMethod(TProtocol out, TMessage request) throws TException {
    out.writeMessageBegin(new TMessage(request.name, TMessageType.EXCEPTION, request.seqid));
    new TApplicationException(
            TApplicationException.UNKNOWN_METHOD, "Invalid method name: '" + request.name + "'")
        .write(out);
    out.writeMessageEnd();
  }

  /** Runs one method; returns the reply text, or null for no reply (oneway). */
  static String run(TMessage m, String text) {
    switch (m.name) {
      case "echo":
        return text;
      case "upper":
        return text.toUpperCase(java.util.Locale.ROOT);
      case "big":
        return text.repeat(1000);
      case "header":
        return ServerCallContext.current().headers().getOrDefault(text, "<none>");
      case "respond":
        int eq = text.indexOf('=');
        ServerCallContext.current()
            .setResponseHeader(text.substring(0, eq), text.substring(eq + 1));
        return "ok";
      case "remaining":
        return ServerCallContext.current()
            .timeRemaining()
            .map(d -> d.isNegative() ? "passed" : "positive")
            .orElse("<none>");
      case "queued":
        return Long.toString(ServerCallContext.current().queueTime().toNanos());
      case "oneway":
        return null;
      case "throw":
        throw new IllegalStateException("handler bug: " + text);
      case "error":
        throw new AssertionError("handler error: " + text);
      case "overflow":
        return Integer.toString(recurse(0));
      default:
        throw new UnsupportedOperationException(m.name);
    }
  }

  private static int recurse(int depth) {
    return recurse(depth + 1) + 1;
  }

  private static final java.util.Set<String> KNOWN =
      java.util.Set.of(
          "echo",
          "upper",
          "big",
          "header",
          "respond",
          "remaining",
          "queued",
          "oneway",
          "throw",
          "error",
          "overflow");

  private static boolean known(String name) {
    return KNOWN.contains(name);
  }

  /** A synchronous processor; undeclared throwables escape from {@code process}. */
  static final class Sync implements TProcessor {
    volatile Thread lastThread;

    @Override
    public void process(TProtocol in, TProtocol out) throws TException {
      lastThread = Thread.currentThread();
      TMessage m = in.readMessageBegin();
      if (!known(m.name)) {
        TProtocolUtil.skip(in, TType.STRUCT);
        in.readMessageEnd();
        writeUnknownMethod(out, m);
        return;
      }
      String text = readText(in, (short) 1);
      in.readMessageEnd();
      String reply = run(m, text);
      if (reply != null) {
        writeReply(out, m, reply);
      }
    }
  }

  /**
   * An asynchronous processor: reads the request on the calling thread, then runs the method and
   * writes the reply on {@code executor}, as an async handler completing later would.
   */
  static final class Async implements TAsyncProcessor {
    private final Executor executor;

    Async(Executor executor) {
      this.executor = executor;
    }

    @Override
    public void process(AsyncFrameBuffer fb) throws TException {
      TProtocol in = fb.getInputProtocol();
      TProtocol out = fb.getOutputProtocol();
      TMessage m = in.readMessageBegin();
      if (!known(m.name)) {
        TProtocolUtil.skip(in, TType.STRUCT);
        in.readMessageEnd();
        writeUnknownMethod(out, m);
        fb.responseReady();
        return;
      }
      String text = readText(in, (short) 1);
      in.readMessageEnd();
      if (m.name.equals("error")) {
        run(m, text); // throws on the calling thread, as a handler's start() may
      }
      executor.execute(
          () -> {
            try {
              String reply = run(m, text);
              if (reply != null) {
                writeReply(out, m, reply);
              }
              fb.responseReady();
            } catch (TException | RuntimeException e) {
              // What a generated AsyncProcessFunction does when it cannot write its response.
              fb.close();
            } catch (StackOverflowError e) {
              fb.close();
            }
          });
    }
  }
}
