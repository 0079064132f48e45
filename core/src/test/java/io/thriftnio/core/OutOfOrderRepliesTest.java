package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.ServerCodec;
import io.thriftnio.core.wire.THeaderFrames;
import io.thriftnio.core.wire.WireEvent;
import io.thriftnio.core.wire.WireSettings;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * THeader's {@code SUPPORT_OUT_OF_ORDER} flag (0x01): a request that sets it is answered as soon as
 * its call ends, its header's sequence id echoed; one without it waits for the calls before it. The
 * worker executor here runs its tasks when and in the order the test says.
 */
@Timeout(10)
class OutOfOrderRepliesTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final int MAX = 4096;
  private static final int OUT_OF_ORDER = 0x01;

  private final MemoryConnection connection = new MemoryConnection();
  private final List<Runnable> tasks = new ArrayList<>();
  private final Executor worker = tasks::add;

  @AfterEach
  void everyRequestReleasedOnce() {
    assertThat(connection.allReleasedOnce()).as("every request released exactly once").isTrue();
  }

  private CallSequencer server() {
    ProcessorInvoker invoker = ProcessorInvoker.of(new MiniService.Sync(), BINARY, BINARY, MAX);
    return CallPath.builder(invoker, new ServerCounters())
        .worker(worker)
        .maxCallsInFlight(100)
        .build()
        .open(connection);
  }

  private void deliver(CallSequencer seq, int flags, int headerSeqId, String text)
      throws Exception {
    ByteBuffer m = MiniService.call(BINARY, "echo", headerSeqId, text);
    byte[] message = new byte[m.remaining()];
    m.get(message);
    byte[] frame = THeaderFrames.request().flags(flags).seqId(headerSeqId).frame(message);
    ServerCodec codec =
        new ServerCodec(
            WireSettings.of(MAX, EnumSet.of(WireKind.HEADER), null, "/"),
            InetSocketAddress.createUnresolved("peer", 0));
    assertThat(codec.next(ByteSource.of(frame), 0, frame.length)).isEqualTo(WireEvent.MESSAGE);
    Decoded d = codec.decoded();
    ByteBuffer payload = ByteBuffer.wrap(frame, d.payloadOffset(), d.payloadLength()).slice();
    seq.onRequest(payload, connection.newRequest(), d.envelope());
  }

  /** The header sequence ids of the replies sent so far, in the order they left. */
  private List<Integer> sentSeqIds() throws Exception {
    connection.runIoTasks();
    List<Integer> ids = new ArrayList<>();
    for (ByteBuffer sent : connection.sent) {
      byte[] bytes = new byte[sent.remaining()];
      sent.duplicate().get(bytes);
      ids.add(THeaderFrames.read(bytes).seqId);
    }
    return ids;
  }

  private void slowThenFast(int flags) throws Exception {
    CallSequencer seq = server();
    deliver(seq, flags, 101, "slow");
    deliver(seq, flags, 102, "fast");
    seq.readComplete();
    assertThat(tasks).hasSize(2);
    tasks.get(1).run(); // the fast call ends first
    assertThat(sentSeqIds())
        .as("after the fast call only")
        .containsExactlyElementsOf(expectFast(flags));
    tasks.get(0).run();
  }

  private static List<Integer> expectFast(int flags) {
    return (flags & OUT_OF_ORDER) != 0 ? List.of(102) : List.of();
  }

  @Test
  void withTheFlagTheFastReplyLeavesFirst() throws Exception {
    slowThenFast(OUT_OF_ORDER);
    assertThat(sentSeqIds()).containsExactly(102, 101);
  }

  @Test
  void withoutItRepliesKeepRequestOrder() throws Exception {
    slowThenFast(0);
    assertThat(sentSeqIds()).containsExactly(101, 102);
  }

  @Test
  void anotherFlagAloneKeepsRequestOrder() throws Exception {
    slowThenFast(0x0002);
    assertThat(sentSeqIds()).containsExactly(101, 102);
  }

  @Test
  void aRequestWithoutTheFlagWaitsForTheOnesBeforeItEvenOnAConnectionThatSetsIt() throws Exception {
    CallSequencer seq = server();
    deliver(seq, OUT_OF_ORDER, 1, "a");
    deliver(seq, 0, 2, "b");
    deliver(seq, OUT_OF_ORDER, 3, "c");
    seq.readComplete();
    tasks.get(2).run();
    tasks.get(1).run();
    assertThat(sentSeqIds()).containsExactly(3);
    tasks.get(0).run();
    assertThat(sentSeqIds()).containsExactly(3, 1, 2);
  }
}
