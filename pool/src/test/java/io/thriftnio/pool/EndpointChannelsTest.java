package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One endpoint's shared connections: who waits for room, and who is woken when room appears. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EndpointChannelsTest {

  private static final InetSocketAddress A = InetSocketAddress.createUnresolved("a", 1);

  /**
   * Borrowers that found the endpoint's one connection still connecting wait for a release; when
   * the connection opens with room for several calls, each of them takes a slot. (Seen as
   * ThriftChannelPoolTest's oversized-request case timing out: the pool's connectors for the second
   * and third call both waited, the new connection woke one, and the other slept its whole borrow
   * timeout beside seven free slots.)
   */
  @Test
  void aNewConnectionWakesAsManyWaitersAsItHasRoomFor() throws Exception {
    EndpointChannels endpoint = new EndpointChannels(A, 8);
    List<Conn> dead = new ArrayList<>();
    EndpointChannels.Grant connect = endpoint.take(1, () -> true, dead);
    assertThat(connect).isNotNull();
    assertThat(connect.conn()).as("a connect reserved").isNull();

    long borrowTimeout = TimeUnit.SECONDS.toNanos(20);
    ExecutorService borrowers = Executors.newFixedThreadPool(2);
    try {
      List<CompletableFuture<Conn>> waiting = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        waiting.add(
            CompletableFuture.supplyAsync(
                () -> {
                  // What a borrower does: take, or wait for a release and take again.
                  long deadline = System.nanoTime() + borrowTimeout;
                  try {
                    while (System.nanoTime() - deadline < 0) {
                      EndpointChannels.Grant g =
                          endpoint.takeOrAwait(
                              1, () -> false, new ArrayList<>(), deadline - System.nanoTime());
                      if (g != null) {
                        return g.conn();
                      }
                    }
                    return null;
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                  }
                },
                borrowers));
      }
      await("two borrowers waiting on the endpoint")
          .until(
              () -> {
                int[] counts = new int[3]; // open, busy, waiting
                endpoint.count(counts);
                return counts[2] == 2;
              });

      Conn opened = endpoint.connected(new OpenChannel(A), 0);

      for (int i = 0; i < waiting.size(); i++) {
        // Well inside the borrow timeout: a waiter left asleep would only wake at its end.
        assertThat(waiting.get(i))
            .as("borrower %d", i)
            .succeedsWithin(Duration.ofSeconds(5))
            .isSameAs(opened);
      }
      int[] counts = new int[3];
      endpoint.count(counts);
      assertThat(counts).as("open, busy, waiting").containsExactly(1, 1, 0);
      assertThat(endpoint.active()).as("the connect's call and the two borrowers'").isEqualTo(3);
    } finally {
      borrowers.shutdownNow();
      assertThat(borrowers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
