package io.thriftnio.peer.drift;

/** The reference handler: the echo returns the very array it was given, as the testkit's does. */
final class DriftBenchHandler implements DriftBench {

  @Override
  public byte[] echo(byte[] payload) {
    return payload;
  }

  @Override
  public void sleep(int millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("sleep(" + millis + ") interrupted", e);
    }
  }
}
