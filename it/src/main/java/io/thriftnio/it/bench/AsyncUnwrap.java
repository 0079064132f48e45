package io.thriftnio.it.bench;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Strips the wrappers {@code CompletableFuture} puts around a failure. */
final class AsyncUnwrap {

  private AsyncUnwrap() {}

  static Throwable cause(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
