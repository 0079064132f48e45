package io.thriftnio.testkit;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link FaultInjectingHandler} that counts the {@code echo} calls that reach it, so a test can
 * show that a call a client refused never did.
 */
public class EchoCountingHandler extends FaultInjectingHandler {
  private final AtomicInteger echoes = new AtomicInteger();

  /** The {@code echo} calls served so far. */
  public int echoes() {
    return echoes.get();
  }

  @Override
  public ByteBuffer echo(ByteBuffer payload) {
    echoes.incrementAndGet();
    return super.echo(payload);
  }
}
