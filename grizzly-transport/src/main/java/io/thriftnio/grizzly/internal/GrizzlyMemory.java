package io.thriftnio.grizzly.internal;

import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.memory.PooledMemoryManager;

/**
 * The one pooled memory manager shared by every server and client transport of this module.
 *
 * <p>A {@link PooledMemoryManager} preallocates a share of the heap (3% by default) when it is
 * created; one per server would multiply that by the number of servers in a JVM, so all share this
 * one, created on first use.
 */
public final class GrizzlyMemory {
  private GrizzlyMemory() {}

  private static final class Holder {
    static final PooledMemoryManager POOLED = new PooledMemoryManager();
  }

  /** The shared pooled memory manager. */
  public static MemoryManager<?> pooled() {
    return Holder.POOLED;
  }
}
