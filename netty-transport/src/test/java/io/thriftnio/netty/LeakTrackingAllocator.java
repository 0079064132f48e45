package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * An allocator that remembers every buffer it hands out, so a test can fail on any buffer still
 * referenced at its end. Slices and duplicates share their parent's reference count, so a leaked
 * frame slice shows up as a leaked parent. Works alongside Netty's PARANOID leak detector (which
 * the build turns on), which only reports leaks when buffers are garbage collected.
 */
final class LeakTrackingAllocator implements ByteBufAllocator {
  private final ByteBufAllocator delegate = new UnpooledByteBufAllocator(false);

  /** Buffers kept before released ones are dropped from the list, so long runs stay small. */
  private static final int PRUNE_AT = 1 << 16;

  private final List<ByteBuf> allocated = new ArrayList<>();
  private int allocations;
  private int pruneAt = PRUNE_AT;
  private long largestCapacity;

  private synchronized <T extends ByteBuf> T track(T buf) {
    allocations++;
    largestCapacity = Math.max(largestCapacity, buf.capacity());
    if (allocated.size() >= pruneAt) {
      noteLargestLive();
      allocated.removeIf(b -> b.refCnt() == 0);
      pruneAt = Math.max(PRUNE_AT, 2 * allocated.size());
    }
    allocated.add(buf);
    return buf;
  }

  private void noteLargestLive() {
    for (ByteBuf b : allocated) {
      if (b.refCnt() != 0) {
        largestCapacity = Math.max(largestCapacity, b.capacity());
      }
    }
  }

  /** Buffers handed out so far. */
  synchronized int allocations() {
    return allocations;
  }

  /**
   * The largest capacity of a buffer handed out, in bytes: at allocation, or later for a buffer
   * still referenced (one that grew in place).
   */
  synchronized long largestCapacity() {
    noteLargestLive();
    return largestCapacity;
  }

  /** Fails if any buffer handed out is still referenced. */
  synchronized void assertAllReleased() {
    List<String> leaks = new ArrayList<>();
    for (ByteBuf b : allocated) {
      if (b.refCnt() != 0) {
        leaks.add(b + " refCnt=" + b.refCnt());
      }
    }
    assertThat(leaks).as("buffers not released (of %d allocated)", allocations).isEmpty();
  }

  @Override
  public ByteBuf buffer() {
    return track(delegate.buffer());
  }

  @Override
  public ByteBuf buffer(int initialCapacity) {
    return track(delegate.buffer(initialCapacity));
  }

  @Override
  public ByteBuf buffer(int initialCapacity, int maxCapacity) {
    return track(delegate.buffer(initialCapacity, maxCapacity));
  }

  @Override
  public ByteBuf ioBuffer() {
    return track(delegate.ioBuffer());
  }

  @Override
  public ByteBuf ioBuffer(int initialCapacity) {
    return track(delegate.ioBuffer(initialCapacity));
  }

  @Override
  public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.ioBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public ByteBuf heapBuffer() {
    return track(delegate.heapBuffer());
  }

  @Override
  public ByteBuf heapBuffer(int initialCapacity) {
    return track(delegate.heapBuffer(initialCapacity));
  }

  @Override
  public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.heapBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public ByteBuf directBuffer() {
    return track(delegate.directBuffer());
  }

  @Override
  public ByteBuf directBuffer(int initialCapacity) {
    return track(delegate.directBuffer(initialCapacity));
  }

  @Override
  public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.directBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public CompositeByteBuf compositeBuffer() {
    return track(delegate.compositeBuffer());
  }

  @Override
  public CompositeByteBuf compositeBuffer(int maxNumComponents) {
    return track(delegate.compositeBuffer(maxNumComponents));
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer() {
    return track(delegate.compositeHeapBuffer());
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
    return track(delegate.compositeHeapBuffer(maxNumComponents));
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer() {
    return track(delegate.compositeDirectBuffer());
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
    return track(delegate.compositeDirectBuffer(maxNumComponents));
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  @Override
  public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
    return delegate.calculateNewCapacity(minNewCapacity, maxCapacity);
  }
}
