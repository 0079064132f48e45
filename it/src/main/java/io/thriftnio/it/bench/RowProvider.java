package io.thriftnio.it.bench;

/**
 * Adds a family of rows to a registry. {@link Rows} loads the Netty, Grizzly, pool and servlet
 * providers by class name, so that the bench still builds and runs while one of them is left out.
 */
interface RowProvider {

  /** Registers this provider's server rows and client kinds. */
  void register(Rows rows);
}
