package io.thriftnio.grizzly.internal;

import java.util.concurrent.atomic.LongAdder;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.memory.MemoryProbe;
import org.glassfish.grizzly.memory.PooledMemoryManager;

/**
 * The one buffer pool shared by every server and client transport of this module, with a bound.
 *
 * <p>Grizzly's {@link PooledMemoryManager}, as its no-argument constructor builds it, fills 3% of
 * the max heap with buffers the moment it is created and keeps them for the life of the JVM: 33 MiB
 * of a 1 GiB heap, 190 MiB of a 6 GiB one, whether one connection or none is ever served. This one
 * preallocates nothing and keeps only buffers given back after use, up to {@link
 * #maxPooledBytes()}: 3% of the max heap, at most {@value #MAX_BYTES_CAP} bytes (64 MiB), at least
 * 3 MiB, in three equal shares of 4, 16 and 64 KiB buffers. A buffer given back to a full pool is
 * left to the garbage collector. The pool is never emptied: the heap it holds after every server
 * and client closed is {@link #pooledBytes()}, never more than the bound.
 *
 * <p>One pool per JVM, not per server: each would multiply the bound by the number of servers.
 */
public final class GrizzlyMemory {
  private GrizzlyMemory() {}

  /** The share of the max heap the pool may hold. */
  static final double HEAP_SHARE = 0.03;

  /** The most the pool may hold, whatever the heap: 64 MiB. */
  static final long MAX_BYTES_CAP = 64L * 1024 * 1024;

  /** Buffer sizes 4, 16 and 64 KiB: Grizzly's defaults. */
  static final int BASE_BUFFER_SIZE = 4 * 1024;

  static final int POOLS = 3;
  static final int GROWTH_FACTOR = 2;

  /**
   * One slice of one size holds a multiple of this: Grizzly rounds each slice up to whole strides
   * of 16 buffers, and 16 of the largest (64 KiB) buffers are 1 MiB.
   */
  static final long SLICE_UNIT = 1024L * 1024;

  private static final class Holder {
    static final Bounded SHARED =
        Bounded.of(
            Bounded.bound(Runtime.getRuntime().maxMemory()),
            Runtime.getRuntime().availableProcessors());
  }

  /** The shared pooled memory manager, created on first use; it preallocates nothing. */
  public static MemoryManager<?> pooled() {
    return Holder.SHARED.manager;
  }

  /** The most heap the shared pool may hold, in bytes: see the class comment. */
  public static long maxPooledBytes() {
    return Holder.SHARED.maxBytes;
  }

  /**
   * The heap the shared pool holds now, in bytes: buffers given back to it and not taken again. 0
   * before any transport was built.
   */
  public static long pooledBytes() {
    return Holder.SHARED.pooledBytes();
  }

  /** A pool with its bound and its own count of the bytes it holds. */
  static final class Bounded {
    final PooledMemoryManager manager;
    final long maxBytes;
    private final LongAdder held = new LongAdder();

    private Bounded(PooledMemoryManager manager, long maxBytes) {
      this.manager = manager;
      this.maxBytes = maxBytes;
      manager
          .getMonitoringConfig()
          .addProbes(
              new MemoryProbe.Adapter() {
                @Override
                public void onBufferAllocateFromPoolEvent(int size) {
                  held.add(-size);
                }

                @Override
                public void onBufferReleaseToPoolEvent(int size) {
                  held.add(size);
                }
              });
    }

    long pooledBytes() {
      return held.sum();
    }

    /**
     * A pool of at most {@code bound} bytes (rounded down to whole MiB per size and slice, at least
     * 3 MiB) for {@code processors} processors. Each of the three sizes gets the same whole number
     * of MiB per slice (a multiple of 16 buffers of every size, so that Grizzly's rounding up to
     * strides of 16 adds nothing), and there are no more slices (one per processor, to spread
     * contention) than leave each at least 1 MiB.
     */
    static Bounded of(long bound, int processors) {
      long unitsPerSize = bound / (POOLS * SLICE_UNIT); // whole MiB per size, over all slices
      int slices = (int) Math.max(1, Math.min(processors, unitsPerSize));
      long unitsPerSlice = Math.max(1, unitsPerSize / slices);
      long exact = POOLS * slices * unitsPerSlice * SLICE_UNIT;
      // Grizzly takes a share of its max heap and divides it by sizes and slices, in float; ask
      // for half a small buffer more than the exact bytes, so that float rounding down never
      // costs a whole stride and Grizzly's own rounding up adds nothing.
      double share =
          (exact + POOLS * slices * (BASE_BUFFER_SIZE / 2.0)) / Runtime.getRuntime().maxMemory();
      PooledMemoryManager manager =
          new PooledMemoryManager(
              BASE_BUFFER_SIZE,
              POOLS,
              GROWTH_FACTOR,
              slices,
              (float) Math.min(share, 0.9),
              0f, // preallocate nothing: the pool fills with buffers given back after use
              false);
      return new Bounded(manager, exact);
    }

    /** 3% of the heap, at most 64 MiB, at least 3 MiB (1 MiB of each size). */
    static long bound(long maxHeap) {
      long share = (long) (maxHeap * HEAP_SHARE);
      return Math.max(POOLS * SLICE_UNIT, Math.min(MAX_BYTES_CAP, share));
    }
  }
}
