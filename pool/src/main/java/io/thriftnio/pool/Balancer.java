package io.thriftnio.pool;

/** How a pool with several endpoints picks the endpoint for the next borrow. */
public enum Balancer {
  /** Endpoints in turn, skipping those marked down. The default. */
  ROUND_ROBIN,
  /**
   * The endpoint with the fewest connections (or, for {@link ThriftChannelPool}, calls) in use,
   * ties broken in turn; endpoints marked down are skipped.
   */
  LEAST_ACTIVE
}
