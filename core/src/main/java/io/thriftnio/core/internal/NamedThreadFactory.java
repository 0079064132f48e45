package io.thriftnio.core.internal;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Names threads {@code prefix-1}, {@code prefix-2}, ...; daemon threads. Not part of the API. */
public final class NamedThreadFactory implements ThreadFactory {
  private final String prefix;
  private final AtomicInteger next = new AtomicInteger(1);

  public NamedThreadFactory(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread t = new Thread(task, prefix + "-" + next.getAndIncrement());
    t.setDaemon(true);
    return t;
  }
}
