/** thrift-nio's Micrometer meters for servers, methods and pools. */
module io.thriftnio.micrometer {
  requires transitive io.thriftnio.core;
  // PoolMeters binds a pool's metrics; the pool module is an optional dependency.
  requires static transitive io.thriftnio.pool;
  requires transitive micrometer.core;

  exports io.thriftnio.micrometer;
}
