package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.HeldLocks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link DnsEndpointSource} runs the user's resolver and the pool's listener under none of its
 * locks, as {@link EndpointSource} promises (issue 38), and still publishes the sets in order.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DnsEndpointSourceCallbacksTest {

  @Test
  void theResolverAndTheListenerRunUnderNoLockOfTheSource() throws Exception {
    InetAddress one = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
    InetAddress two = InetAddress.getByAddress(new byte[] {127, 0, 0, 2});
    List<String> held = new CopyOnWriteArrayList<>();
    List<List<InetSocketAddress>> published = new CopyOnWriteArrayList<>();
    CountDownLatch second = new CountDownLatch(1);
    List<InetAddress> answer = new CopyOnWriteArrayList<>(List.of(one));
    DnsEndpointSource source =
        DnsEndpointSource.builder("svc.test", 9090)
            .interval(Duration.ofMillis(10))
            .resolver(
                host -> {
                  held.addAll(HeldLocks.ofLibrary());
                  return List.copyOf(answer);
                })
            .build();
    try {
      source.start(
          endpoints -> {
            held.addAll(HeldLocks.ofLibrary());
            published.add(endpoints);
            if (published.size() == 2) {
              second.countDown();
            }
          });
      answer.add(two); // the timer's next resolution publishes the second set

      assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(published.subList(0, 2))
          .containsExactly(
              List.of(new InetSocketAddress(one, 9090)),
              List.of(new InetSocketAddress(one, 9090), new InetSocketAddress(two, 9090)));
      assertThat(held).as("library locks held while the resolver or the listener ran").isEmpty();
    } finally {
      source.close();
    }
  }
}
