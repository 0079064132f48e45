package io.thriftnio.testkit.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.LockCheckingInterceptor;
import io.thriftnio.testkit.VirtualThreads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * The around form of server interceptors ({@link ServerInterceptor#attach}) on a real server: what
 * an interceptor makes current (an MDC-like thread-local here) is seen by a synchronous handler and
 * by an asynchronous handler's completion on another thread, on every strategy, and is gone from
 * the thread once the part of the call ends; a failing {@code attach} fails its call alone, a
 * failing scope close changes nothing. Each transport runs it once per strategy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.STRATEGIES)
public abstract class AroundInterceptorSuite extends ServerCellSuite {

  private static final TProtocolFactory PROTOCOL = new TBinaryProtocol.Factory();

  /** What an MDC is: a value per thread. */
  static final ThreadLocal<String> MDC = new ThreadLocal<>();

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** Installed first on every server: no interceptor hook runs under a library lock (issue 38). */
  private final LockCheckingInterceptor lockCheck = new LockCheckingInterceptor();

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    for (ThriftServer s : servers) {
      s.close();
    }
    assertThat(lockCheck.held()).as("library locks held while an interceptor ran").isEmpty();
  }

  /**
   * Puts "seqid N" in {@link #MDC} for the call; notes what it found there before (a leak), and
   * what {@code afterCall} saw.
   */
  static final class MdcInterceptor implements ServerInterceptor {
    final Queue<String> leaks = new ConcurrentLinkedQueue<>();
    final Queue<String> seenAfter = new ConcurrentLinkedQueue<>();

    @Override
    public Runnable attach(ServerCallContext context) {
      String before = MDC.get();
      if (before != null) {
        leaks.add(before + " on " + Thread.currentThread().getName());
      }
      MDC.set("seqid " + context.seqId());
      return MDC::remove;
    }

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      seenAfter.add(String.valueOf(MDC.get()));
    }
  }

  /** Answers {@code echo} with what {@link #MDC} holds on the handler's thread. */
  static final class MdcHandler extends BenchHandler {
    @Override
    public ByteBuffer echo(ByteBuffer payload) {
      return ByteBuffer.wrap(String.valueOf(MDC.get()).getBytes(UTF_8));
    }
  }

  private ServerBuilder<?> builder(ServerInterceptor... interceptors) {
    List<ServerInterceptor> all = new ArrayList<>();
    all.add(lockCheck); // first: its hooks run around every other's
    all.addAll(List.of(interceptors));
    return newServerBuilder()
        .protocol(PROTOCOL)
        .ioStrategy(strategy())
        .interceptors(all)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private RawConnection open(ServerBuilder<?> builder) throws IOException {
    ThriftServer server = builder.build();
    servers.add(server);
    server.start();
    RawConnection c = RawConnection.open(server.localAddress());
    closeables.add(c);
    return c;
  }

  private static String ask(RawConnection c, int seqid) throws Exception {
    c.write(
        RawConnection.frame(
            RawConnection.encodeCall(
                PROTOCOL,
                "echo",
                TMessageType.CALL,
                seqid,
                new BenchService.echo_args(ByteBuffer.wrap(new byte[] {1})))));
    BenchService.echo_result result = new BenchService.echo_result();
    TMessage header = RawConnection.decodeReply(PROTOCOL, c.readFrame(), result);
    assertThat(header.seqid).isEqualTo(seqid);
    return new String(result.getSuccess(), UTF_8);
  }

  private static TApplicationException readFailure(RawConnection c, int seqid) throws Exception {
    TProtocol p = PROTOCOL.getProtocol(new TMemoryInputTransport(c.readFrame()));
    TMessage header = p.readMessageBegin();
    assertThat(header.seqid).isEqualTo(seqid);
    assertThat(header.type).as("%s", header).isEqualTo(TMessageType.EXCEPTION);
    return TApplicationException.readFrom(p);
  }

  @Test
  void aSyncHandlerSeesWhatAttachMadeCurrentAndTheThreadIsCleanAfter() throws Exception {
    MdcInterceptor mdc = new MdcInterceptor();
    RawConnection c = open(builder(mdc).processor(new BenchService.Processor<>(new MdcHandler())));
    List<String> expected = new ArrayList<>();
    for (int seqid = 1; seqid <= 20; seqid++) {
      assertThat(ask(c, seqid)).isEqualTo("seqid " + seqid);
      expected.add("seqid " + seqid);
    }
    assertThat(mdc.seenAfter)
        .as("afterCall runs inside the scope")
        .containsExactlyElementsOf(expected);
    assertThat(mdc.leaks).as("nothing left on a thread for its next call").isEmpty();
  }

  @Test
  void anAsyncHandlersCompletionOnAnotherThreadSeesItAndThatThreadIsCleanAfter() throws Exception {
    ExecutorService elsewhere = Executors.newSingleThreadExecutor();
    closeables.add(elsewhere::shutdownNow);
    Queue<String> seenInMethod = new ConcurrentLinkedQueue<>();
    AsyncBenchHandler async =
        new AsyncBenchHandler() {
          @Override
          public void echo(ByteBuffer payload, AsyncMethodCallback<ByteBuffer> cb) {
            seenInMethod.add(String.valueOf(MDC.get()));
            elsewhere.execute(() -> cb.onComplete(ByteBuffer.wrap(new byte[] {1})));
          }
        };
    MdcInterceptor mdc = new MdcInterceptor();
    RawConnection c = open(builder(mdc).asyncProcessor(new BenchService.AsyncProcessor<>(async)));
    for (int seqid = 1; seqid <= 10; seqid++) {
      ask(c, seqid);
    }
    assertThat(seenInMethod).hasSize(10).allMatch(s -> s.startsWith("seqid "));
    assertThat(mdc.seenAfter)
        .as("the completion, on the other thread, runs afterCall inside the scope")
        .hasSize(10)
        .allMatch(s -> s.startsWith("seqid "));
    assertThat(elsewhere.submit(MDC::get).get(10, TimeUnit.SECONDS))
        .as("the completion's thread, after it")
        .isNull();
    assertThat(mdc.leaks).isEmpty();
  }

  @Test
  void anAsyncHandlerCompletingInsideItsMethodIsNotAttachedTwice() throws Exception {
    MdcInterceptor mdc = new MdcInterceptor();
    RawConnection c =
        open(
            builder(mdc)
                .asyncProcessor(new BenchService.AsyncProcessor<>(new AsyncBenchHandler())));
    for (int seqid = 1; seqid <= 5; seqid++) {
      ask(c, seqid);
    }
    assertThat(mdc.leaks).as("a second attach on the same thread would find the first").isEmpty();
    assertThat(mdc.seenAfter).hasSize(5).allMatch(s -> s.startsWith("seqid "));
  }

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void aHandlerOnAVirtualThreadWorkerSeesIt() throws Exception {
    assumeTrue(strategy() == IoStrategy.WORKER, "WORKER only: virtual threads are a worker");
    ExecutorService virtual = VirtualThreads.newPerTaskExecutor();
    closeables.add(virtual::shutdownNow);
    MdcInterceptor mdc = new MdcInterceptor();
    RawConnection c =
        open(
            builder(mdc)
                .processor(new BenchService.Processor<>(new MdcHandler()))
                .workerExecutor(virtual));
    assertThat(ask(c, 1)).isEqualTo("seqid 1");
    assertThat(ask(c, 2)).isEqualTo("seqid 2");
  }

  @Test
  void aWorkerThreadIsCleanAfterTheCall() throws Exception {
    assumeTrue(strategy() == IoStrategy.WORKER, "WORKER only: the test owns the worker thread");
    ExecutorService worker = Executors.newSingleThreadExecutor();
    closeables.add(worker::shutdownNow);
    RawConnection c =
        open(
            builder(new MdcInterceptor())
                .processor(new BenchService.Processor<>(new MdcHandler()))
                .workerExecutor(worker));
    assertThat(ask(c, 1)).isEqualTo("seqid 1");
    assertThat(worker.submit(MDC::get).get(10, TimeUnit.SECONDS)).isNull();
  }

  /** Throws from {@code attach} for odd sequence ids. */
  static final class FailingAttach implements ServerInterceptor {
    final Queue<CallOutcome> outcomes = new ConcurrentLinkedQueue<>();

    @Override
    public Runnable attach(ServerCallContext context) {
      if (context.seqId() % 2 == 1) {
        throw new IllegalStateException("attach bug");
      }
      return () -> {};
    }

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      outcomes.add(outcome);
    }
  }

  @Test
  void aFailingAttachFailsItsCallAloneAndClosesTheScopesOpenedBeforeIt() throws Exception {
    MdcInterceptor mdc = new MdcInterceptor();
    FailingAttach failing = new FailingAttach();
    RawConnection c =
        open(builder(mdc, failing).processor(new BenchService.Processor<>(new MdcHandler())));
    TApplicationException failure = readFailureOf(c, 1);
    assertThat(failure.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
    assertThat(failure.getMessage()).contains("echo");
    assertThat(ask(c, 2)).as("the next call runs, on a clean thread").isEqualTo("seqid 2");
    assertThat(failing.outcomes).startsWith(CallOutcome.UNDECLARED_FAILURE, CallOutcome.SUCCESS);
    assertThat(mdc.leaks).as("the MDC scope opened before the failure was closed").isEmpty();
  }

  private static TApplicationException readFailureOf(RawConnection c, int seqid) throws Exception {
    TBase<?, ?> args = new BenchService.echo_args(ByteBuffer.wrap(new byte[] {1}));
    c.write(
        RawConnection.frame(
            RawConnection.encodeCall(PROTOCOL, "echo", TMessageType.CALL, seqid, args)));
    return readFailure(c, seqid);
  }

  @Test
  void aFailingScopeCloseChangesNothing() throws Exception {
    MdcInterceptor mdc = new MdcInterceptor();
    ServerInterceptor badClose =
        new ServerInterceptor() {
          @Override
          public Runnable attach(ServerCallContext context) {
            return () -> {
              throw new IllegalStateException("close bug");
            };
          }
        };
    RawConnection c =
        open(builder(mdc, badClose).processor(new BenchService.Processor<>(new MdcHandler())));
    assertThat(ask(c, 1)).isEqualTo("seqid 1");
    assertThat(ask(c, 2)).isEqualTo("seqid 2");
    assertThat(mdc.leaks).as("the scopes after it still closed").isEmpty();
  }
}
