package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.conformance.THeaderFrames;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ThriftAsyncClientPool} gives each call on a connection its own sequence id on the wire
 * (the stock async client writes 0 on every call): a reply meant for an earlier call on the same
 * connection, such as a server's duplicate that arrives after the connection went back to the pool,
 * fails the call that reads it, and the connection is not kept.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AsyncReplySequenceTest {

  private static CompletableFuture<String> echo(
      ThriftAsyncClientPool<BenchService.AsyncClient> pool, String text) {
    return pool.<ByteBuffer>call(
            (c, cb) -> c.echo(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), cb))
        .thenApply(b -> StandardCharsets.UTF_8.decode(b).toString());
  }

  @Test
  void aDuplicateReplyCannotAnswerTheNextCall() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(peer.address())
                .build()) {
      peer.mode = StubPeer.Mode.STALE_FIRST;
      assertThat(echo(pool, "one").get(10, TimeUnit.SECONDS)).isEqualTo("one");
      assertThat(pool.stats().total()).isEqualTo(1);

      // The server sends the first call's reply again, then the second's.
      Object two =
          echo(pool, "two")
              .handle((ok, t) -> t == null ? ok : Failures.unwrap(t))
              .get(10, TimeUnit.SECONDS);
      assertThat(two)
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.BAD_SEQUENCE_ID))
          .asString()
          .contains("echo failed: out of sequence response from " + peer.address())
          .contains("expected seqid " + peer.seqids.get(1) + ", got " + peer.seqids.get(0));
      assertThat(pool.stats().invalidated()).isEqualTo(1);
      assertThat(pool.stats().total()).isZero();

      peer.mode = StubPeer.Mode.NORMAL;
      assertThat(echo(pool, "three").get(10, TimeUnit.SECONDS)).isEqualTo("three");
      assertThat(pool.stats().created()).isEqualTo(2);
    }
  }

  @Test
  void aDuplicateReplyCannotAnswerTheNextCallOnTHeader() throws Exception {
    // Each reply frame goes out after the previous one again, in the same write.
    AtomicReference<byte[]> previous = new AtomicReference<>();
    Function<byte[], byte[]> staleFirst =
        message -> {
          byte[] frame = THeaderFrames.request().frame(message);
          byte[] stale = previous.getAndSet(frame);
          if (stale == null) {
            return frame;
          }
          byte[] both = Arrays.copyOf(stale, stale.length + frame.length);
          System.arraycopy(frame, 0, both, stale.length, frame.length);
          return both;
        };
    try (THeaderStubPeer peer = new THeaderStubPeer(staleFirst, false);
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(peer.address())
                .options(ClientOptions.builder().wireKind(WireKind.HEADER).build())
                .build()) {
      assertThat(echo(pool, "one").get(10, TimeUnit.SECONDS)).isEqualTo("one");
      assertThat(pool.stats().total()).isEqualTo(1);

      Object two =
          echo(pool, "two")
              .handle((ok, t) -> t == null ? ok : Failures.unwrap(t))
              .get(10, TimeUnit.SECONDS);
      int first = seqid(peer.requests.get(0).message);
      int second = seqid(peer.requests.get(1).message);
      assertThat(two)
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.BAD_SEQUENCE_ID))
          .asString()
          .contains("echo failed: out of sequence response from " + peer.address())
          .contains("expected seqid " + second + ", got " + first);
      assertThat(pool.stats().invalidated()).isEqualTo(1);
      assertThat(pool.stats().total()).isZero();
    }
  }

  private static int seqid(byte[] message) throws TException {
    return new TBinaryProtocol(new TMemoryInputTransport(message)).readMessageBegin().seqid;
  }

  @Test
  void eachCallOnAConnectionHasItsOwnSequenceId() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(peer.address())
                .build()) {
      for (int i = 0; i < 5; i++) {
        assertThat(echo(pool, "call " + i).get(10, TimeUnit.SECONDS)).isEqualTo("call " + i);
      }
      assertThat(pool.stats().created()).isEqualTo(1);
      assertThat(peer.seqids).hasSize(5).doesNotHaveDuplicates();
    }
  }
}
