package io.thriftnio.core.wire;

/**
 * What one step of decoding found, as a decoder returns it; what goes with it is in {@link Decoded}
 * (see its table for what an IO adapter does with each).
 */
public enum WireEvent {

  /** Nothing whole yet: keep the bytes, decode again when more arrive. */
  NEED_MORE,

  /** A whole message: a request on a server, a reply on a client. */
  MESSAGE,

  /** Bytes to send back without a call ({@code 100 Continue}, an HTTP refusal). */
  ANSWER,

  /** A reply that fails its call; the connection goes on (an HTTP error status). */
  FAILED,

  /** Bytes consumed with nothing to deliver (the answer to a oneway HTTP call). */
  SKIPPED,

  /** The connection cannot be read on: {@link Decoded#refusal()}. */
  REFUSED,

  /**
   * A step of the kind's own runs elsewhere: decode again once {@link Decoded#awaited()} completes.
   */
  AWAIT
}
