package io.thriftnio.testkit.conformance;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a {@link ServerCellSuite} varies over, named by the suite ({@link Of}); each transport says
 * once which servers make up each matrix ({@link TransportCells#cells(Matrix)}).
 */
public enum Matrix {
  /** The builder's defaults, once per strategy the transport has. */
  STRATEGIES,
  /** As {@link #STRATEGIES}, with one more cell on mutual TLS where the transport has TLS. */
  STRATEGIES_AND_MUTUAL_TLS,
  /**
   * As {@link #STRATEGIES}, with WORKER on a native transport where the transport has one (where a
   * channel's close is seen differently from NIO).
   */
  STRATEGIES_AND_NATIVE_WORKER,
  /** Two IO threads on the default IO, once per strategy. */
  TWO_IO_THREADS,
  /**
   * Each IO path: two IO threads on the portable IO (NIO) once per strategy, and SAME_THREAD (the
   * IO-thread path, where a transport's read, write and close show) on every native transport.
   */
  IO_PATHS,
  /**
   * A protocol above the frames (SASL, THeader): the transport's defaults once per strategy, on the
   * portable IO where it has a choice, and SAME_THREAD on its first native transport.
   */
  PROTOCOLS;

  /** The matrix a suite runs on; inherited by the transports' subclasses. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.TYPE)
  @Inherited
  public @interface Of {
    /** The matrix. */
    Matrix value();
  }
}
