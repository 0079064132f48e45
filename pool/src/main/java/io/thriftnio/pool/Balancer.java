package io.thriftnio.pool;

/**
 * How a pool with several endpoints picks the endpoint for the next borrow. Every balancer skips
 * endpoints marked down; "active" counts connections in use (for {@link ThriftChannelPool}, calls
 * in flight) on an endpoint.
 */
public enum Balancer {
  /** Endpoints in turn. */
  ROUND_ROBIN,
  /** The endpoint with the fewest active, ties broken in turn; reads every endpoint per borrow. */
  LEAST_ACTIVE,
  /**
   * Power of two choices, the default: two endpoints drawn at random, the one with fewer active
   * wins. Nearly as even as {@link #LEAST_ACTIVE} under load, reads two counts per borrow whatever
   * the number of endpoints, and keeps many clients that see the same counts from all rushing to
   * the same least loaded endpoint. A slow endpoint, whose calls pile up, gets fewer new ones.
   */
  POWER_OF_TWO_CHOICES
}
