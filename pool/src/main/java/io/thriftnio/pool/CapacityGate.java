package io.thriftnio.pool;

/** The pool-wide connection limit, reserved without holding any endpoint's lock across calls. */
interface CapacityGate {
  /** Takes one unit of the limit; {@code false} when none is left. */
  boolean tryReserve();
}
