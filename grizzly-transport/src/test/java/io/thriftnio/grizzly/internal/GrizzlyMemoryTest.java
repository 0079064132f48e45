package io.thriftnio.grizzly.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.glassfish.grizzly.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared Grizzly buffer pool: what it holds before use, its bound, its count. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GrizzlyMemoryTest {

  /**
   * The pool of a JVM that has built no transport yet holds nothing: creating it (in a class loader
   * of its own, so that this JVM's shared pool, made by earlier tests, does not count) does not
   * raise the heap after GC by more than the noise of a few MiB.
   */
  @Test
  void aNewPoolPreallocatesNothing() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      urls.add(new File(entry).toURI().toURL());
    }
    try (URLClassLoader fresh =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      Class<?> memory = Class.forName(GrizzlyMemory.class.getName(), true, fresh);
      // Grizzly's own classes first, so that only the pool differs between the two readings.
      Class.forName("org.glassfish.grizzly.memory.PooledMemoryManager", true, fresh);
      long before = heapAfterGc();
      Object manager = memory.getMethod("pooled").invoke(null);
      long after = heapAfterGc();
      assertThat(manager).isNotNull();
      assertThat(after - before)
          .as(
              "heap after GC grown by creating the pool (%.1f MiB -> %.1f MiB, max heap %.0f MiB)",
              mib(before), mib(after), mib(Runtime.getRuntime().maxMemory()))
          .isLessThan(4L * 1024 * 1024);
    }
  }

  @Test
  void theBoundIsThreePercentOfTheHeapAtMost64MiB() {
    assertThat(GrizzlyMemory.Bounded.bound(MIB)).isEqualTo(3 * MIB);
    assertThat(GrizzlyMemory.Bounded.bound(1024 * MIB)).isEqualTo((long) (1024 * MIB * 0.03));
    assertThat(GrizzlyMemory.Bounded.bound(8192 * MIB)).isEqualTo(64 * MIB);
  }

  /**
   * Flooded with more buffers given back than it may keep, a pool holds exactly its bound, whatever
   * Grizzly's rounding per slice, and counts what it holds: the bound in whole MiB per size and
   * slice, 1 GiB -> 30 MiB on 2 processors, 256 MiB -> 6 MiB, 64 MiB -> 3 MiB.
   */
  @Test
  void aFloodedPoolHoldsExactlyItsBound() {
    assertThat(GrizzlyMemory.Bounded.of(GrizzlyMemory.Bounded.bound(1024 * MIB), 2).maxBytes)
        .isEqualTo(30 * MIB);
    assertThat(GrizzlyMemory.Bounded.of(GrizzlyMemory.Bounded.bound(8192 * MIB), 64).maxBytes)
        .isEqualTo(63 * MIB);
    assertThat(GrizzlyMemory.Bounded.of(GrizzlyMemory.Bounded.bound(64 * MIB), 8).maxBytes)
        .isEqualTo(3 * MIB);
    GrizzlyMemory.Bounded pool =
        GrizzlyMemory.Bounded.of(GrizzlyMemory.Bounded.bound(256 * MIB), 2);
    assertThat(pool.maxBytes).isEqualTo(6 * MIB);
    assertThat(pool.pooledBytes()).isZero();
    for (int size : new int[] {4 * 1024, 16 * 1024, 64 * 1024}) {
      // Three times what the pool keeps of this size: each slice gets more than its share back.
      int count = (int) (3 * pool.maxBytes / 3 / size);
      List<Buffer> held = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        held.add(pool.manager.allocate(size));
      }
      held.forEach(Buffer::tryDispose);
    }
    assertThat(pool.pooledBytes()).isEqualTo(pool.maxBytes);
    // Taken again, and given back: the count follows.
    Buffer one = pool.manager.allocate(16 * 1024);
    assertThat(pool.pooledBytes()).isEqualTo(pool.maxBytes - 16 * 1024);
    one.tryDispose();
    assertThat(pool.pooledBytes()).isEqualTo(pool.maxBytes);
  }

  private static final long MIB = 1024L * 1024;

  private static long heapAfterGc() throws InterruptedException {
    System.gc();
    Thread.sleep(100);
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
