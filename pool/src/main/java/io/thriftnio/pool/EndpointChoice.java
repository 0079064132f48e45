package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

/**
 * The {@link Balancer}'s choice of one endpoint among a snapshot of the set, as a lease on it: an
 * endpoint up, or one down whose back-off has passed (its probe). The borrow loop ({@link
 * EndpointSelector#borrow}) decides what to do with the choice; this class only chooses.
 */
final class EndpointChoice {
  private final Balancer balancer;
  private final ToIntFunction<InetSocketAddress> active;
  private final AtomicInteger next = new AtomicInteger();

  /**
   * @param active calls or connections in use per endpoint, for the balancers that compare them
   */
  EndpointChoice(Balancer balancer, ToIntFunction<InetSocketAddress> active) {
    this.balancer = balancer;
    this.active = active;
  }

  /**
   * A lease on an endpoint of {@code endpoints} not in {@code exclude}; {@code null} when every
   * candidate is down and still backing off (or being probed by another borrower). {@code peek}:
   * the borrow never connects ({@link EndpointState#tryAcquire(boolean)}).
   */
  EndpointState.Lease choose(
      List<EndpointState> endpoints, List<EndpointState> exclude, boolean peek) {
    int n = endpoints.size();
    if (n == 0) {
      return null;
    }
    if (balancer == Balancer.POWER_OF_TWO_CHOICES && n > 1) {
      EndpointState.Lease lease = twoChoices(endpoints, exclude, peek);
      if (lease != null) {
        return lease;
      }
      // Both drawn are down or tried: look at every endpoint, as the other balancers do.
    }
    int start = n == 1 ? 0 : Math.floorMod(next.getAndIncrement(), n);
    if (balancer == Balancer.LEAST_ACTIVE && n > 1) {
      EndpointState best = null;
      int bestActive = Integer.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        EndpointState e = endpoints.get((start + i) % n);
        if (e.isUp() && (exclude == null || !exclude.contains(e))) {
          int a = active.applyAsInt(e.address);
          if (a < bestActive) {
            best = e;
            bestActive = a;
          }
        }
      }
      if (best != null) {
        EndpointState.Lease lease = best.tryAcquire(peek);
        if (lease != null) {
          return lease;
        }
      }
    }
    for (int i = 0; i < n; i++) {
      EndpointState e = endpoints.get((start + i) % n);
      if (exclude == null || !exclude.contains(e)) {
        EndpointState.Lease lease = e.tryAcquire(peek);
        if (lease != null) {
          return lease;
        }
      }
    }
    return null;
  }

  /**
   * Two distinct endpoints at random: a down one whose back-off has passed is probed (a probe takes
   * precedence, or a revived endpoint would wait for both draws to fail); else the less active of
   * those up and not tried; {@code null} if neither.
   */
  private EndpointState.Lease twoChoices(
      List<EndpointState> endpoints, List<EndpointState> exclude, boolean peek) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int n = endpoints.size();
    int i = random.nextInt(n);
    int j = random.nextInt(n - 1);
    if (j >= i) {
      j++;
    }
    EndpointState a = endpoints.get(i);
    EndpointState b = endpoints.get(j);
    boolean aFree = exclude == null || !exclude.contains(a);
    boolean bFree = exclude == null || !exclude.contains(b);
    EndpointState.Lease probe = probeIfDown(a, aFree, peek);
    if (probe == null) {
      probe = probeIfDown(b, bFree, peek);
    }
    if (probe != null) {
      return probe;
    }
    boolean aUp = aFree && a.isUp();
    boolean bUp = bFree && b.isUp();
    EndpointState best;
    if (aUp && bUp) {
      best = active.applyAsInt(b.address) < active.applyAsInt(a.address) ? b : a;
    } else {
      best = aUp ? a : bUp ? b : null;
    }
    return best == null ? null : best.tryAcquire(peek);
  }

  private static EndpointState.Lease probeIfDown(EndpointState e, boolean free, boolean peek) {
    return free && !e.isUp() ? e.tryAcquire(peek) : null;
  }
}
