package io.thriftnio.pool;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a pool keeps a connection before it retires it ({@link PoolBuilder#maxConnectionAge}),
 * so that a long-lived pool reopens its connections now and then and spreads them over the
 * endpoints it knows (a load balancer in front of the servers, such as a Kubernetes Service,
 * balances connections, not calls). Each connection draws its own lifetime, the age plus or minus
 * {@value #JITTER_PERCENT}%, so that connections opened together are not all reopened together.
 */
final class ConnectionAge {
  /** The jitter, as gRPC's {@code maxConnectionAgeJitter} default: plus or minus this percent. */
  static final int JITTER_PERCENT = 10;

  /** No ageing: connections live until they fail, idle out or the pool closes. */
  static final ConnectionAge NONE = new ConnectionAge(0);

  private final long ageNanos;

  private ConnectionAge(long ageNanos) {
    this.ageNanos = ageNanos;
  }

  /** {@code age} (checked already, {@code >= 0}); zero for none. */
  static ConnectionAge of(Duration age) {
    return age.isZero() ? NONE : new ConnectionAge(age.toNanos());
  }

  /** The lifetime of a connection opened now, jittered, in nanoseconds; 0 for no ageing. */
  long lifetimeNanos() {
    if (ageNanos == 0) {
      return 0;
    }
    long spread = ageNanos / 100 * JITTER_PERCENT;
    long lifetime = ageNanos + ThreadLocalRandom.current().nextLong(-spread, spread + 1);
    return Math.max(1, lifetime);
  }

  @Override
  public String toString() {
    return ageNanos == 0 ? "none" : Duration.ofNanos(ageNanos) + " +-" + JITTER_PERCENT + "%";
  }
}
