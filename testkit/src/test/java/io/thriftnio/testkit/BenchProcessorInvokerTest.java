package io.thriftnio.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** ProcessorInvoker end to end with the generated BenchService processors, every method. */
@Timeout(30)
class BenchProcessorInvokerTest {

  /** One invoker configuration: processor kind x protocol. */
  record Setup(
      String name, ProcessorInvoker invoker, TProtocolFactory protocol, BenchHandler handler) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> setups() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (TProtocolFactory protocol :
        new TProtocolFactory[] {new TBinaryProtocol.Factory(), new TCompactProtocol.Factory()}) {
      String p = protocol.getClass().getEnclosingClass().getSimpleName();
      FaultInjectingHandler sync = new FaultInjectingHandler();
      b.add(
          Arguments.of(
              new Setup(
                  "sync-" + p,
                  ProcessorInvoker.of(
                      new BenchService.Processor<>(sync),
                      protocol,
                      protocol,
                      Framing.DEFAULT_MAX_FRAME_SIZE),
                  protocol,
                  sync)));
      BenchHandler shared = new BenchHandler();
      b.add(
          Arguments.of(
              new Setup(
                  "async-" + p,
                  ProcessorInvoker.ofAsync(
                      new BenchService.AsyncProcessor<>(new AsyncBenchHandler(shared)),
                      protocol,
                      protocol,
                      Framing.DEFAULT_MAX_FRAME_SIZE),
                  protocol,
                  shared)));
    }
    return b.build();
  }

  private static byte[] invoke(Setup s, String method, byte type, int seqid, TBase<?, ?> args)
      throws Exception {
    byte[] request = RawConnection.encodeCall(s.protocol(), method, type, seqid, args);
    CompletableFuture<ByteBuffer> f = s.invoker().invoke(ByteBuffer.wrap(request));
    ByteBuffer frame = f.get(10, TimeUnit.SECONDS);
    if (frame == null) {
      return null;
    }
    int length = frame.getInt(frame.position());
    assertThat(length).isEqualTo(frame.remaining() - Framing.HEADER_SIZE);
    byte[] payload = new byte[length];
    frame.duplicate().position(frame.position() + Framing.HEADER_SIZE).get(payload);
    return payload;
  }

  private static <R extends TBase<?, ?>> R call(
      Setup s, String method, int seqid, TBase<?, ?> args, R result) throws Exception {
    byte[] reply = invoke(s, method, TMessageType.CALL, seqid, args);
    TMessage m = RawConnection.decodeReply(s.protocol(), reply, result);
    assertThat(m.name).isEqualTo(method);
    assertThat(m.type).isEqualTo(TMessageType.REPLY);
    assertThat(m.seqid).isEqualTo(seqid);
    return result;
  }

  @ParameterizedTest
  @MethodSource("setups")
  void echo(Setup s) throws Exception {
    for (int size : new int[] {0, Payloads.SMALL, Payloads.MEDIUM, Payloads.LARGE}) {
      BenchService.echo_result r =
          call(
              s,
              "echo",
              size,
              new BenchService.echo_args(Payloads.of(size, size)),
              new BenchService.echo_result());
      assertThat(Payloads.check(r.bufferForSuccess(), size, size))
          .as("echo of %d bytes", size)
          .isTrue();
    }
  }

  @ParameterizedTest
  @MethodSource("setups")
  void getLastSale(Setup s) throws Exception {
    BenchService.get_last_sale_result r =
        call(
            s,
            "get_last_sale",
            2,
            new BenchService.get_last_sale_args("AAPL"),
            new BenchService.get_last_sale_result());
    assertThat(r.getSuccess()).isEqualTo(new TradeReport("AAPL", 25.50, 100, 1));
  }

  @ParameterizedTest
  @MethodSource("setups")
  void dbWork(Setup s) throws Exception {
    BenchService.db_work_result r =
        call(
            s, "db_work", 3, new BenchService.db_work_args(250), new BenchService.db_work_result());
    assertThat(r.getSuccess()).hasSize(250);
    for (int i = 0; i < 250; i++) {
      assertThat(r.getSuccess().get(i)).isEqualTo(BenchHandler.row(i));
    }
  }

  @ParameterizedTest
  @MethodSource("setups")
  void getNestedUpToTheMaximumDepth(Setup s) throws Exception {
    BenchService.get_nested_result r =
        call(
            s,
            "get_nested",
            5,
            new BenchService.get_nested_args(BenchHandler.MAX_DEPTH),
            new BenchService.get_nested_result());
    assertThat(r.getSuccess()).isEqualTo(BenchHandler.nested(BenchHandler.MAX_DEPTH));
  }

  @ParameterizedTest
  @MethodSource("setups")
  void sleep(Setup s) throws Exception {
    long start = System.nanoTime();
    BenchService.sleep_result r =
        call(s, "sleep", 6, new BenchService.sleep_args(50), new BenchService.sleep_result());
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    assertThat((Object) r).isEqualTo(new BenchService.sleep_result());
  }

  @ParameterizedTest
  @MethodSource("setups")
  void failReturnsTheDeclaredException(Setup s) throws Exception {
    BenchService.fail_result r =
        call(
            s,
            "fail",
            7,
            new BenchService.fail_args(418, "teapot"),
            new BenchService.fail_result());
    assertThat((Object) r.getError()).isEqualTo(new BenchError(418, "teapot"));
  }

  /**
   * Only {@code fail} declares {@code BenchError} in bench.thrift, so the handler's bad-argument
   * {@code BenchError} from {@code db_work} or {@code get_nested} reaches a remote caller as an
   * undeclared exception: {@code TApplicationException(INTERNAL_ERROR)} with the request's seqid.
   */
  @ParameterizedTest
  @MethodSource("setups")
  void badArgumentOnAMethodWithoutThrowsIsAnInternalError(Setup s) throws Exception {
    for (Object[] bad :
        new Object[][] {
          {
            "get_nested", new BenchService.get_nested_args(61), new BenchService.get_nested_result()
          },
          {"db_work", new BenchService.db_work_args(-1), new BenchService.db_work_result()},
        }) {
      byte[] reply = invoke(s, (String) bad[0], TMessageType.CALL, 8, (TBase<?, ?>) bad[1]);
      assertThatThrownBy(() -> RawConnection.decodeReply(s.protocol(), reply, (TBase<?, ?>) bad[2]))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
    }
  }

  @ParameterizedTest
  @MethodSource("setups")
  void fireIsOnewayAndFiredCountsIt(Setup s) throws Exception {
    for (int i = 0; i < 3; i++) {
      byte[] none =
          invoke(
              s,
              "fire",
              TMessageType.ONEWAY,
              20 + i,
              new BenchService.fire_args(Payloads.of(100, i)));
      assertThat(none).isNull();
    }
    assertThat(s.handler().fired()).isEqualTo(3);
    assertThat(s.handler().firedBytes()).isEqualTo(300);
    BenchService.fired_result r =
        call(s, "fired", 30, new BenchService.fired_args(), new BenchService.fired_result());
    assertThat(r.getSuccess()).isEqualTo(3L);
  }

  /**
   * A oneway request with malformed arguments gets no reply: libthrift's generated sync processor
   * writes a PROTOCOL_ERROR reply even for oneway methods, which a pipelined client would take as
   * the answer to its next call.
   */
  @Test
  void malformedOnewayRequestGetsNoReply() throws Exception {
    for (Setup s :
        setups()
            .map(a -> (Setup) a.get()[0])
            .filter(s -> s.protocol() instanceof TBinaryProtocol.Factory)
            .toList()) {
      malformedOnewayRequestGetsNoReply(s);
    }
  }

  private static void malformedOnewayRequestGetsNoReply(Setup s) throws Exception {
    byte[] request =
        RawConnection.encodeCall(
            s.protocol(),
            "fire",
            TMessageType.ONEWAY,
            60,
            new BenchService.fire_args(Payloads.of(3, 1)));
    // Binary layout ends with: i32 length, 3 payload bytes, field stop. Make the length negative.
    ByteBuffer.wrap(request).putInt(request.length - 1 - 3 - 4, -5);
    assertThat(s.invoker().invoke(ByteBuffer.wrap(request)).get(10, TimeUnit.SECONDS)).isNull();
    assertThat(s.handler().fired()).isZero();
    // The same corruption in a two-way call is answered with PROTOCOL_ERROR.
    byte[] twoWay =
        RawConnection.encodeCall(
            s.protocol(),
            "echo",
            TMessageType.CALL,
            61,
            new BenchService.echo_args(Payloads.of(3, 1)));
    ByteBuffer.wrap(twoWay).putInt(twoWay.length - 1 - 3 - 4, -5);
    ByteBuffer frame = s.invoker().invoke(ByteBuffer.wrap(twoWay)).get(10, TimeUnit.SECONDS);
    byte[] reply = new byte[frame.remaining() - 4];
    frame.duplicate().position(4).get(reply);
    assertThatThrownBy(
            () -> RawConnection.decodeReply(s.protocol(), reply, new BenchService.echo_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR));
  }

  @ParameterizedTest
  @MethodSource("setups")
  void unknownMethodIsAnswered(Setup s) throws Exception {
    byte[] reply =
        invoke(s, "no_such_method", TMessageType.CALL, 31, new BenchService.fired_args());
    assertThatThrownBy(
            () -> RawConnection.decodeReply(s.protocol(), reply, new BenchService.fired_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD));
  }

  @ParameterizedTest
  @MethodSource("setups")
  void responseLargerThanMaxFrameSizeIsAnInternalError(Setup s) throws Exception {
    ProcessorInvoker small =
        s.name().startsWith("sync")
            ? ProcessorInvoker.of(
                new BenchService.Processor<>(new BenchHandler()),
                s.protocol(),
                s.protocol(),
                10_000)
            : ProcessorInvoker.ofAsync(
                new BenchService.AsyncProcessor<>(new AsyncBenchHandler()),
                s.protocol(),
                s.protocol(),
                10_000);
    Setup limited = new Setup(s.name(), small, s.protocol(), s.handler());
    byte[] reply =
        invoke(limited, "db_work", TMessageType.CALL, 40, new BenchService.db_work_args(1000));
    assertThatThrownBy(
            () -> RawConnection.decodeReply(s.protocol(), reply, new BenchService.db_work_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
              assertThat(e.getMessage()).contains("db_work");
            });
  }

  /** Undeclared throwables from a generated sync processor's handler. */
  @Test
  void undeclaredThrowablesBecomeInternalErrorWithTheSeqid() throws Exception {
    Setup s = (Setup) setups().findFirst().orElseThrow().get()[0];
    for (int code :
        new int[] {
          FaultInjectingHandler.THROW_RUNTIME_EXCEPTION,
          FaultInjectingHandler.THROW_ERROR,
          FaultInjectingHandler.THROW_STACK_OVERFLOW
        }) {
      byte[] reply =
          invoke(s, "fail", TMessageType.CALL, code, new BenchService.fail_args(code, "boom"));
      TMessage[] header = new TMessage[1];
      assertThatThrownBy(
              () ->
                  header[0] =
                      RawConnection.decodeReply(
                          s.protocol(), reply, new BenchService.fail_result()))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> {
                assertThat(e.getType())
                    .as("code %d", code)
                    .isEqualTo(TApplicationException.INTERNAL_ERROR);
                assertThat(e.getMessage()).contains("fail");
              });
      // The reply carries the request's seqid.
      ByteBuffer b = ByteBuffer.wrap(reply);
      TMessage m =
          s.protocol()
              .getProtocol(
                  io.thriftnio.core.util.internal.FrameInputTransport.of(
                      new org.apache.thrift.TConfiguration(), b))
              .readMessageBegin();
      assertThat(m.type).isEqualTo(TMessageType.EXCEPTION);
      assertThat(m.seqid).isEqualTo(code);
    }
  }

  @Test
  void asyncHandlerThatThrowsInsteadOfCallingBackIsAnInternalError() throws Exception {
    BenchService.AsyncIface throwing =
        (BenchService.AsyncIface)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {BenchService.AsyncIface.class},
                (proxy, method, args) -> {
                  throw new IllegalStateException("handler bug in " + method.getName());
                });
    TProtocolFactory binary = new TBinaryProtocol.Factory();
    Setup s =
        new Setup(
            "async-throwing",
            ProcessorInvoker.ofAsync(
                new BenchService.AsyncProcessor<>(throwing),
                binary,
                binary,
                Framing.DEFAULT_MAX_FRAME_SIZE),
            binary,
            null);
    byte[] reply =
        invoke(s, "echo", TMessageType.CALL, 50, new BenchService.echo_args(Payloads.of(1, 1)));
    assertThatThrownBy(
            () -> RawConnection.decodeReply(binary, reply, new BenchService.echo_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
    // A oneway call whose handler throws gets no reply at all.
    assertThat(
            invoke(
                s, "fire", TMessageType.ONEWAY, 51, new BenchService.fire_args(Payloads.of(1, 1))))
        .isNull();
  }

  /**
   * libthrift 0.23's TBinaryProtocol takes a negative binary or string length to its array fast
   * path, so the generated argument reader throws IndexOutOfBoundsException instead of a
   * TProtocolException; once the JIT has compiled such code, an implicit exception may come without
   * a stack trace. The request is still malformed: PROTOCOL_ERROR, the handler not run. The same
   * exception type thrown by a handler stays an INTERNAL_ERROR.
   */
  @ParameterizedTest(name = "{0}, stackless {1}")
  @CsvSource({"sync, false", "async, false", "sync, true", "async, true"})
  void aRuntimeExceptionWhileReadingArgumentsIsAProtocolError(String kind, boolean stackless)
      throws Exception {
    TProtocolFactory binary = new TBinaryProtocol.Factory();
    TProtocolFactory libthrift023 = transport -> new Libthrift023Binary(transport, stackless);
    java.util.concurrent.atomic.AtomicInteger echoes =
        new java.util.concurrent.atomic.AtomicInteger();
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public ByteBuffer echo(ByteBuffer payload) {
            echoes.incrementAndGet();
            return super.echo(payload);
          }
        };
    ProcessorInvoker invoker =
        kind.equals("sync")
            ? ProcessorInvoker.of(
                new BenchService.Processor<>(handler),
                libthrift023,
                binary,
                Framing.DEFAULT_MAX_FRAME_SIZE)
            : ProcessorInvoker.ofAsync(
                new BenchService.AsyncProcessor<>(new AsyncBenchHandler(handler)),
                libthrift023,
                binary,
                Framing.DEFAULT_MAX_FRAME_SIZE);
    Setup s = new Setup(kind, invoker, binary, handler);
    byte[] request =
        RawConnection.encodeCall(
            binary, "echo", TMessageType.CALL, 70, new BenchService.echo_args(Payloads.of(3, 1)));
    // Binary layout ends with: i32 length, 3 payload bytes, field stop. Make the length negative.
    ByteBuffer.wrap(request).putInt(request.length - 1 - 3 - 4, -2_130_360_346);
    ByteBuffer frame = invoker.invoke(ByteBuffer.wrap(request)).get(10, TimeUnit.SECONDS);
    byte[] reply = new byte[frame.remaining() - Framing.HEADER_SIZE];
    frame.duplicate().position(Framing.HEADER_SIZE).get(reply);
    assertThatThrownBy(
            () -> RawConnection.decodeReply(binary, reply, new BenchService.echo_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
              assertThat(e.getMessage()).contains("echo", "IndexOutOfBoundsException");
              if (stackless) {
                assertThat(e.getMessage()).contains("ArrayIndexOutOfBoundsException");
              }
            });
    // The emulation reads well-formed arguments as libthrift does.
    BenchService.echo_result ok =
        call(
            s,
            "echo",
            71,
            new BenchService.echo_args(Payloads.of(3, 1)),
            new BenchService.echo_result());
    assertThat(Payloads.check(ok.bufferForSuccess(), 3, 1)).isTrue();
    assertThat(echoes).as("echo calls that reached the handler").hasValue(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "async"})
  void anIndexOutOfBoundsExceptionFromTheHandlerIsAnInternalError(String kind) throws Exception {
    TProtocolFactory binary = new TBinaryProtocol.Factory();
    ClassLoader loader = getClass().getClassLoader();
    java.lang.reflect.InvocationHandler throwing =
        (proxy, method, args) -> {
          throw new IndexOutOfBoundsException("handler bug in " + method.getName());
        };
    ProcessorInvoker invoker =
        kind.equals("sync")
            ? ProcessorInvoker.of(
                new BenchService.Processor<>(
                    (BenchService.Iface)
                        java.lang.reflect.Proxy.newProxyInstance(
                            loader, new Class<?>[] {BenchService.Iface.class}, throwing)),
                binary,
                binary,
                Framing.DEFAULT_MAX_FRAME_SIZE)
            : ProcessorInvoker.ofAsync(
                new BenchService.AsyncProcessor<>(
                    (BenchService.AsyncIface)
                        java.lang.reflect.Proxy.newProxyInstance(
                            loader, new Class<?>[] {BenchService.AsyncIface.class}, throwing)),
                binary,
                binary,
                Framing.DEFAULT_MAX_FRAME_SIZE);
    byte[] reply =
        invoke(
            new Setup(kind, invoker, binary, null),
            "echo",
            TMessageType.CALL,
            72,
            new BenchService.echo_args(Payloads.of(3, 1)));
    assertThatThrownBy(
            () -> RawConnection.decodeReply(binary, reply, new BenchService.echo_result()))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
  }

  /**
   * Reads binary fields as libthrift 0.23's TBinaryProtocol does, without a negative-size check;
   * {@code stackless}: a negative size throws as JIT-compiled code's implicit exceptions may, with
   * an empty stack trace.
   */
  private static final class Libthrift023Binary extends TBinaryProtocol {
    private final boolean stackless;

    Libthrift023Binary(TTransport transport, boolean stackless) {
      super(transport);
      this.stackless = stackless;
    }

    @Override
    public ByteBuffer readBinary() throws TException {
      int size = readI32();
      TTransport transport = getTransport();
      if (transport.getBytesRemainingInBuffer() < size) {
        throw new AssertionError("a heap frame is always read through the array fast path");
      }
      if (stackless && size < 0) {
        ArrayIndexOutOfBoundsException fastThrow = new ArrayIndexOutOfBoundsException();
        fastThrow.setStackTrace(new StackTraceElement[0]);
        throw fastThrow;
      }
      ByteBuffer value =
          ByteBuffer.wrap(transport.getBuffer(), transport.getBufferPosition(), size);
      transport.consumeBuffer(size);
      return value;
    }
  }
}
