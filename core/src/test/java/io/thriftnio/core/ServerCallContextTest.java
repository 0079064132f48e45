package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.MiniService.Reply;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.Framing;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ServerCallContext} and {@link ServerInterceptor} through {@link ProcessorInvoker}. */
@Timeout(20)
class ServerCallContextTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final int MAX = Framing.DEFAULT_MAX_FRAME_SIZE;
  private static final CallKey<String> USER = CallKey.of("user");

  private static final ExecutorService ASYNC =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "context-async-handler"));

  @AfterAll
  static void stopExecutor() {
    ASYNC.shutdownNow();
  }

  /** A sync processor that notes the context its handler sees, then runs {@link MiniService}. */
  private static final class Capturing implements TProcessor {
    final AtomicReference<ServerCallContext> seen = new AtomicReference<>();
    final AtomicInteger runs = new AtomicInteger();
    final TProcessor delegate = new MiniService.Sync();

    @Override
    public void process(TProtocol in, TProtocol out) throws org.apache.thrift.TException {
      runs.incrementAndGet();
      seen.set(ServerCallContext.current());
      delegate.process(in, out);
    }
  }

  private static Reply invoke(ProcessorInvoker invoker, String method, int seqid, String text)
      throws Exception {
    ByteBuffer frame =
        invoker.invoke(MiniService.call(BINARY, method, seqid, text)).get(10, TimeUnit.SECONDS);
    return MiniService.decode(BINARY, frame);
  }

  @Test
  void currentOutsideACallSaysWhy() {
    assertThatThrownBy(ServerCallContext::current)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not running a Thrift call")
        .hasMessageContaining(Thread.currentThread().getName());
  }

  @Test
  void aSyncHandlerSeesItsCallAndNothingLeaksToTheThreadAfterwards() throws Exception {
    Capturing processor = new Capturing();
    ProcessorInvoker invoker = ProcessorInvoker.of(processor, BINARY, BINARY, MAX);
    long before = System.nanoTime();

    assertThat(invoke(invoker, "upper", 17, "hi").success()).isEqualTo("HI");

    ServerCallContext c = processor.seen.get();
    assertThat(c.methodName()).isEqualTo("upper");
    assertThat(c.seqId()).isEqualTo(17);
    assertThat(c.messageType()).isEqualTo(TMessageType.CALL);
    assertThat(c.isOneway()).isFalse();
    assertThat(c.protocolFactory()).isSameAs(BINARY);
    assertThat(c.connectionId()).as("no server connection").isZero();
    assertThat(c.remoteAddress()).isNull();
    assertThat(c.tlsSession()).isEmpty();
    assertThat(c.peerPrincipal()).isEmpty();
    assertThat(c.peerCertificate()).isEmpty();
    assertThat(c.receivedAtNanos() - before).isNotNegative();
    assertThatThrownBy(ServerCallContext::current)
        .as("cleared once the call is over, on the same thread")
        .isInstanceOf(IllegalStateException.class);

    invoke(invoker, "echo", 18, "x");
    assertThat(processor.seen.get()).as("a context per call").isNotSameAs(c);
    assertThat(processor.seen.get().seqId()).isEqualTo(18);
  }

  @Test
  void aOnewayCallSaysSo() throws Exception {
    Capturing processor = new Capturing();
    ProcessorInvoker invoker = ProcessorInvoker.of(processor, BINARY, BINARY, MAX);
    assertThat(
            invoker
                .invoke(MiniService.request(BINARY, "oneway", TMessageType.ONEWAY, 3, "x"))
                .get(10, TimeUnit.SECONDS))
        .isNull();
    assertThat(processor.seen.get().isOneway()).isTrue();
    assertThat(processor.seen.get().messageType()).isEqualTo(TMessageType.ONEWAY);
  }

  @Test
  void anAsyncHandlerTakesItAtStartAndCarriesItToItsCompletion() throws Exception {
    AtomicReference<ServerCallContext> atStart = new AtomicReference<>();
    AtomicReference<String> onCompletionThread = new AtomicReference<>();
    AtomicReference<Throwable> currentOnCompletionThread = new AtomicReference<>();
    TAsyncProcessor delegate = new MiniService.Async(ASYNC);
    TAsyncProcessor processor =
        fb -> {
          ServerCallContext c = ServerCallContext.current();
          atStart.set(c);
          ASYNC.execute(
              () -> {
                onCompletionThread.set(c.methodName() + "#" + c.seqId());
                try {
                  ServerCallContext.current();
                } catch (IllegalStateException expected) {
                  currentOnCompletionThread.set(expected);
                }
              });
          delegate.process(fb);
        };
    ProcessorInvoker invoker = ProcessorInvoker.ofAsync(processor, BINARY, BINARY, MAX);

    assertThat(invoke(invoker, "echo", 5, "a").success()).isEqualTo("a");

    assertThat(atStart.get().methodName()).isEqualTo("echo");
    assertThat(onCompletionThread.get()).isEqualTo("echo#5");
    assertThat(currentOnCompletionThread.get())
        .as("current() is not set on the thread the handler completes on")
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(ServerCallContext::current).isInstanceOf(IllegalStateException.class);
  }

  /** Records what it sees as "name:event". */
  private static final class Recording implements ServerInterceptor {
    final String name;
    final List<String> events;

    Recording(String name, List<String> events) {
      this.name = name;
      this.events = events;
    }

    @Override
    public void beforeCall(ServerCallContext context) throws TApplicationException {
      events.add(name + ":before " + context.methodName());
    }

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      assertThat(nanos).isNotNegative();
      events.add(name + ":after " + context.methodName() + " " + outcome);
    }
  }

  @Test
  void interceptorsRunInOrderAroundTheHandlerAndSeeEachOutcome() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    ProcessorInvoker invoker =
        ProcessorInvoker.of(
                (in, out) -> {
                  events.add("handler");
                  new MiniService.Sync().process(in, out);
                },
                BINARY,
                BINARY,
                MAX)
            .withInterceptors(List.of(new Recording("a", events), new Recording("b", events)));

    invoke(invoker, "echo", 1, "x");
    assertThat(events)
        .containsExactly(
            "a:before echo",
            "b:before echo",
            "handler",
            "b:after echo SUCCESS",
            "a:after echo SUCCESS");

    events.clear();
    assertThat(invoke(invoker, "throw", 2, "x").exception().getType())
        .isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(events).contains("a:after throw UNDECLARED_FAILURE");

    events.clear();
    assertThat(invoke(invoker, "nope", 3, "x").exception().getType())
        .isEqualTo(TApplicationException.UNKNOWN_METHOD);
    assertThat(events).contains("a:after nope APPLICATION_EXCEPTION");

    events.clear();
    invoker.invoke(MiniService.request(BINARY, "oneway", TMessageType.ONEWAY, 4, "x")).get();
    assertThat(events).contains("a:after oneway ONEWAY");
  }

  @Test
  void afterCallIsToldWhyACallFailed() throws Exception {
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    ServerInterceptor noting =
        new ServerInterceptor() {
          @Override
          public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
            failures.add(context.failure().orElse(null));
          }
        };
    ProcessorInvoker invoker =
        ProcessorInvoker.of(new MiniService.Sync(), BINARY, BINARY, MAX)
            .withInterceptors(List.of(noting));

    invoke(invoker, "echo", 1, "x");
    assertThat(failures).containsExactly((Throwable) null);

    failures.clear();
    invoke(invoker, "throw", 2, "x");
    assertThat(failures.get(0))
        .as("a processor of our own lets its handler's exception out: the server sees it")
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("handler bug: x");

    failures.clear();
    assertThat(invoke(invoker, "error", 3, "x").exception().getType())
        .isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(failures.get(0)).isInstanceOf(AssertionError.class).hasMessage("handler error: x");

    failures.clear();
    invoke(invoker, "nope", 4, "x");
    assertThat(failures.get(0))
        .as("the processor answered the failure itself: what the caller was sent, read back")
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> {
              assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD);
              assertThat(e.getMessage()).isEqualTo("Invalid method name: 'nope'");
            });

    failures.clear();
    ByteBuffer whole = MiniService.call(BINARY, "echo", 5, "some text");
    ByteBuffer truncated = whole.duplicate();
    truncated.limit(whole.limit() - 4); // the arguments end early
    invoker.invoke(truncated).get(10, TimeUnit.SECONDS);
    assertThat(failures.get(0))
        .as("a malformed request: the PROTOCOL_ERROR its caller is sent")
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR));

    TApplicationException refusal =
        new TApplicationException(TApplicationException.UNSUPPORTED_CLIENT_TYPE, "denied");
    List<Throwable> refused = new CopyOnWriteArrayList<>();
    ProcessorInvoker refusing =
        ProcessorInvoker.of(new MiniService.Sync(), BINARY, BINARY, MAX)
            .withInterceptors(
                List.of(
                    new ServerInterceptor() {
                      @Override
                      public void afterCall(ServerCallContext c, CallOutcome o, long nanos) {
                        refused.add(c.failure().orElse(null));
                      }
                    },
                    new ServerInterceptor() {
                      @Override
                      public void beforeCall(ServerCallContext c) throws TApplicationException {
                        throw refusal;
                      }
                    }));
    invoke(refusing, "echo", 5, "x");
    assertThat(refused).containsExactly(refusal);
  }

  @Test
  void aRefusalAnswersWithTheInterceptorsExceptionAndTheHandlerNeverRuns() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    Capturing processor = new Capturing();
    ServerInterceptor refuse =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) throws TApplicationException {
            throw new TApplicationException(
                TApplicationException.UNSUPPORTED_CLIENT_TYPE, "denied: " + context.methodName());
          }
        };
    Recording last = new Recording("last", events);
    ProcessorInvoker invoker =
        ProcessorInvoker.of(processor, BINARY, BINARY, MAX)
            .withInterceptors(List.of(new Recording("first", events), refuse, last));

    Reply reply = invoke(invoker, "echo", 9, "x");

    assertThat(reply.header().seqid).isEqualTo(9);
    assertThat(reply.exception().getType())
        .isEqualTo(TApplicationException.UNSUPPORTED_CLIENT_TYPE);
    assertThat(reply.exception().getMessage()).isEqualTo("denied: echo");
    assertThat(processor.runs.get()).isZero();
    assertThat(events).containsExactly("first:before echo", "first:after echo REFUSED");
  }

  @Test
  void aFailingInterceptorFailsItsCallAloneAndAFailingAfterCallChangesNothing() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    ServerInterceptor flaky =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            if (calls.incrementAndGet() == 1) {
              throw new IllegalStateException("interceptor bug");
            }
          }

          @Override
          public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
            throw new IllegalStateException("afterCall bug");
          }
        };
    ProcessorInvoker invoker =
        ProcessorInvoker.of(new MiniService.Sync(), BINARY, BINARY, MAX)
            .withInterceptors(List.of(flaky));

    Reply first = invoke(invoker, "echo", 1, "x");
    assertThat(first.exception().getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(first.exception().getMessage()).isEqualTo("Internal error processing echo");
    Reply second = invoke(invoker, "echo", 2, "y");
    assertThat(second.success()).isEqualTo("y");
  }

  @Test
  void anInterceptorHandsAttributesToTheHandler() throws Exception {
    AtomicReference<String> seen = new AtomicReference<>();
    ServerInterceptor auth =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            context.setAttribute(USER, "alice");
          }
        };
    ProcessorInvoker invoker =
        ProcessorInvoker.of(
                (in, out) -> {
                  seen.set(ServerCallContext.current().attribute(USER));
                  new MiniService.Sync().process(in, out);
                },
                BINARY,
                BINARY,
                MAX)
            .withInterceptors(List.of(auth));
    invoke(invoker, "echo", 1, "x");
    assertThat(seen.get()).isEqualTo("alice");
  }

  @Test
  void anAsyncHandlersInterceptorsSeeTheOutcomeWhenItCompletes() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    ProcessorInvoker invoker =
        ProcessorInvoker.ofAsync(new MiniService.Async(ASYNC), BINARY, BINARY, MAX)
            .withInterceptors(
                List.of(
                    new Recording("a", events),
                    new ServerInterceptor() {
                      @Override
                      public void afterCall(ServerCallContext c, CallOutcome o, long nanos) {
                        done.complete(null);
                      }
                    }));
    assertThat(invoke(invoker, "upper", 1, "x").success()).isEqualTo("X");
    done.get(10, TimeUnit.SECONDS);
    assertThat(events).containsExactly("a:before upper", "a:after upper SUCCESS");
  }
}
