package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.thrift.TException;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The choice of endpoint (power of two choices' spread, a set that changes) and what the borrow
 * loop tells an endpoint about it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EndpointSelectorTest {
  private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 1001);
  private static final InetSocketAddress B = new InetSocketAddress("127.0.0.1", 1002);
  private static final InetSocketAddress C = new InetSocketAddress("127.0.0.1", 1003);
  private static final InetSocketAddress D = new InetSocketAddress("127.0.0.1", 1004);

  private final Map<InetSocketAddress, Integer> active = new HashMap<>();
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  private EndpointSelector selector(Balancer balancer, InetSocketAddress... endpoints) {
    return new EndpointSelector(
        List.of(endpoints),
        PoolConfig.builder().balancer(balancer).build(),
        a -> active.getOrDefault(a, 0),
        clock::get);
  }

  /** Where {@code times} borrows go, through the borrow loop the pools run. */
  private static Map<InetSocketAddress, Integer> choose(EndpointSelector selector, int times)
      throws TException {
    Map<InetSocketAddress, Integer> chosen = new HashMap<>();
    for (int i = 0; i < times; i++) {
      chosen.merge(
          selector.borrow("pool", (endpoint, elsewhere) -> endpoint.address, () -> "total=0"),
          1,
          Integer::sum);
    }
    return chosen;
  }

  @Test
  void twoChoicesSpreadsEvenlyOverIdleEndpoints() throws TException {
    Map<InetSocketAddress, Integer> chosen =
        choose(selector(Balancer.POWER_OF_TWO_CHOICES, A, B, C, D), 8000);
    // 2000 each expected; the standard deviation is about 40.
    assertThat(chosen.values()).hasSize(4).allSatisfy(n -> assertThat(n).isBetween(1700, 2300));
  }

  @Test
  void twoChoicesSendsFewerCallsWhereCallsPileUp() throws TException {
    active.put(A, 8); // a slow endpoint: its calls pile up
    active.put(B, 1);
    Map<InetSocketAddress, Integer> chosen =
        choose(selector(Balancer.POWER_OF_TWO_CHOICES, A, B, C, D), 6000);
    assertThat(chosen.getOrDefault(A, 0)).as("the busiest loses every draw").isZero();
    // b wins only when drawn with a: 1 pair in 6.
    assertThat(chosen.get(B)).isBetween(700, 1300);
    assertThat(chosen.get(C)).isBetween(2000, 2800);
    assertThat(chosen.get(D)).isBetween(2000, 2800);
  }

  @Test
  void twoChoicesSkipsADownEndpointAndFindsTheLastUpOne() throws TException {
    EndpointSelector selector = selector(Balancer.POWER_OF_TWO_CHOICES, A, B, C);
    selector.state(A).connectFailed(new ConnectException("refused (from the test)"));
    selector.state(B).connectFailed(new ConnectException("refused (from the test)"));
    Map<InetSocketAddress, Integer> chosen = choose(selector, 300);
    assertThat(chosen).containsOnlyKeys(C);
  }

  @Test
  void twoChoicesProbesADownEndpointOnceItsBackoffHasPassed() throws TException {
    EndpointSelector selector = selector(Balancer.POWER_OF_TWO_CHOICES, A, B);
    selector.state(A).connectFailed(new ConnectException("refused (from the test)"));
    assertThat(choose(selector, 100)).containsOnlyKeys(B);
    clock.addAndGet(EndpointHealthConfig.DEFAULT_BACKOFF.toNanos());
    List<String> probed = new java.util.ArrayList<>();
    selector.borrow(
        "pool",
        (endpoint, elsewhere) -> {
          probed.add(endpoint.address + (endpoint.isUp() ? " up" : " down"));
          return endpoint.address;
        },
        () -> "total=0");
    assertThat(probed).as("the probe goes first").containsExactly(A + " down");
    assertThat(selector.state(A).isUp()).as("up through its probe").isTrue();
  }

  @Test
  void anUpdateKeepsTheStateOfEndpointsThatStayAndReturnsThoseThatLeft() throws TException {
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A, B);
    EndpointState a = selector.state(A);
    a.connectFailed(new ConnectException("refused (from the test)"));
    List<EndpointState> left = selector.update(List.of(C, A));
    assertThat(left).extracting(e -> e.address).containsExactly(B);
    assertThat(selector.state(A)).isSameAs(a);
    assertThat(selector.state(A).isUp()).as("still down: its back-off goes on").isFalse();
    assertThat(selector.state(B)).isNull();
    assertThat(selector.all()).extracting(e -> e.address).containsExactly(A, C);
    assertThat(choose(selector, 10)).containsOnlyKeys(C);
    assertThat(selector.update(List.of())).hasSize(2);
    assertThatThrownBy(() -> choose(selector, 1))
        .isInstanceOf(PoolException.class)
        .hasMessageContaining("lists no endpoint");
  }

  /**
   * A borrow attempt that returns a connection after {@code meanwhile} happened to the endpoint.
   */
  private static EndpointSelector.Attempt<String> returnsAConnectionAfter(
      java.util.function.Consumer<EndpointState> meanwhile) {
    return (endpoint, elsewhere) -> {
      meanwhile.accept(endpoint);
      return "a connection to " + endpoint.address;
    };
  }

  private static String borrowFrom(
      EndpointSelector selector, InetSocketAddress preferred, EndpointSelector.Attempt<String> a)
      throws Exception {
    return selector.borrow("pool", a, () -> "total=0", preferred);
  }

  /** {@code endpoint} down after one refused connect, its back-off passed: due for its probe. */
  private void dueForItsProbe(EndpointState endpoint) {
    endpoint.connectFailed(new ConnectException("refused (test)"));
    clock.addAndGet(java.time.Duration.ofMinutes(1).toNanos());
  }

  private static <T> T peek(
      EndpointSelector selector, InetSocketAddress preferred, EndpointSelector.Attempt<T> a)
      throws org.apache.thrift.TException {
    return selector.peek("pool", a, null, () -> "total=0", preferred, null, null);
  }

  @Test
  void aBorrowThatMayConnectProbesWhileAPeekHoldsTheProbe() throws Exception {
    // An async pool's dispatcher peeks for the head of its queue while a connector serves that
    // very call. Before the fix the connector found the probe taken by the peek and failed the
    // call ("no endpoint available: ... probe in flight") for an endpoint due for its probe.
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A);
    EndpointState a = selector.state(A);
    dueForItsProbe(a);
    String[] served = new String[1];
    Object peeked =
        peek(
            selector,
            A,
            (endpoint, elsewhere) -> {
              assertThat(a.describeDown())
                  .as("the peek holds the probe")
                  .contains("probe in flight");
              served[0] =
                  selector.borrow("pool", returnsAConnectionAfter(e -> {}), () -> "total=0", A);
              return null; // no free connection
            });
    assertThat(peeked).isNull();
    assertThat(served[0]).isEqualTo("a connection to " + A);
    assertThat(a.isUp()).as("up through the connecting borrow's probe").isTrue();
    assertThat(a.describeDown()).doesNotContain("probe in flight");
  }

  @Test
  void aPeekFindsNothingWhileABorrowThatMayConnectProbes() throws Exception {
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A);
    EndpointState a = selector.state(A);
    dueForItsProbe(a);
    borrowFrom(
        selector,
        A,
        (endpoint, elsewhere) -> {
          org.assertj.core.api.Assertions.assertThatThrownBy(
                  () -> peek(selector, A, (e, nowhere) -> "a free connection"))
              .isInstanceOf(PoolException.class)
              .hasMessageContaining("probe in flight");
          return "a connection to " + A;
        });
    assertThat(a.isUp()).isTrue();
  }

  @Test
  void aBorrowThatBeganWhileUpDoesNotUndoAnEjectionThatCameWhileItWaited() throws Exception {
    // The borrow takes the shared up-lease, then waits for an idle connection; meanwhile the
    // endpoint is ejected. Before the fix the borrow's success marked the endpoint up again.
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A, B);
    EndpointState a = selector.state(A);
    String got =
        borrowFrom(
            selector,
            A,
            returnsAConnectionAfter(
                e ->
                    assertThat(e.eject(new TTransportException("reset (from the test)")))
                        .isTrue()));
    assertThat(got).isEqualTo("a connection to " + A);
    assertThat(a.isUp()).as("still ejected: %s", a.describeDown()).isFalse();
    assertThat(choose(selector, 20)).as("calls go elsewhere").containsOnlyKeys(B);
  }

  @Test
  void aBorrowThatBeganWhileUpDoesNotEndAnOutageThatBeganWhileItWaited() throws Exception {
    // The same with the endpoint down after another borrower's connect failed.
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A);
    EndpointState a = selector.state(A);
    borrowFrom(
        selector,
        A,
        returnsAConnectionAfter(e -> e.connectFailed(new ConnectException("refused (test)"))));
    assertThat(a.isUp()).as("still down: %s", a.describeDown()).isFalse();
    assertThatThrownBy(() -> choose(selector, 1))
        .as("backing off: nothing to lend")
        .isInstanceOf(PoolException.class)
        .hasMessageContaining("no endpoint available");
  }

  @Test
  void theProbeStillBringsTheEndpointBack() throws Exception {
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A, B);
    EndpointState a = selector.state(A);
    borrowFrom(
        selector,
        A,
        returnsAConnectionAfter(e -> e.eject(new TTransportException("reset (from the test)"))));
    clock.addAndGet(EndpointHealthConfig.DEFAULT_BACKOFF.toNanos());
    List<Boolean> probed = new java.util.ArrayList<>();
    borrowFrom(
        selector, A, returnsAConnectionAfter(e -> probed.add(e.isUp() ? null : Boolean.TRUE)));
    assertThat(probed).containsExactly(Boolean.TRUE);
    assertThat(a.isUp()).isTrue();
    assertThat(a.describeDown()).doesNotContain("probe in flight");
  }

  /**
   * A borrow through the loop whose endpoint has no room: it takes what {@code elsewhere} finds.
   */
  private static String overflow(
      EndpointSelector selector, InetSocketAddress preferred, InetSocketAddress avoid)
      throws TException {
    return selector.peek(
        "pool",
        (endpoint, elsewhere) -> {
          String room = elsewhere.find();
          return room == null ? "waits on " + endpoint.address : room;
        },
        other -> "a free connection of " + other.address,
        () -> "total=0",
        preferred,
        avoid,
        null);
  }

  @Test
  void roomElsewhereIsOnAnotherEndpointUpNeverTheOneAvoided() throws Exception {
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A, B, C);
    selector.state(C).connectFailed(new ConnectException("refused (test)"));
    for (int i = 0; i < 50; i++) {
      assertThat(overflow(selector, A, B))
          .as("B avoided (where the call failed), C down")
          .isEqualTo("waits on " + A);
      assertThat(overflow(selector, A, null)).isEqualTo("a free connection of " + B);
    }
  }

  @Test
  void aProbeFindsNoRoomElsewhere() throws Exception {
    // The probe of a down endpoint must reach it: served from another endpoint's free connection
    // it would bring the endpoint up unheard (the defect behind 2ca62c0, now decided here once).
    EndpointSelector selector = selector(Balancer.ROUND_ROBIN, A, B);
    EndpointState a = selector.state(A);
    dueForItsProbe(a);
    assertThat(overflow(selector, A, null)).isEqualTo("waits on " + A);
    assertThat(overflow(selector, B, null)).isEqualTo("a free connection of " + A);
  }
}
