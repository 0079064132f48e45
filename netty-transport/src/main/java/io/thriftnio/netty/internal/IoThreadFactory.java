package io.thriftnio.netty.internal;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names event loop threads {@code prefix-1}, {@code prefix-2}, ...; creates Netty's {@link
 * FastThreadLocalThread}s so that Netty's thread-locals (buffer caches) take their fast path. Not
 * part of the API.
 */
public final class IoThreadFactory implements ThreadFactory {
  private final String prefix;
  private final boolean daemon;
  private final AtomicInteger next = new AtomicInteger(1);

  /**
   * @param prefix the name before the number
   * @param daemon whether the threads let the JVM exit while they run
   */
  public IoThreadFactory(String prefix, boolean daemon) {
    this.prefix = prefix;
    this.daemon = daemon;
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread t = new FastThreadLocalThread(task, prefix + "-" + next.getAndIncrement());
    t.setDaemon(daemon);
    return t;
  }
}
