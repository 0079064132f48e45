package io.thriftnio.testkit;

import io.thriftnio.core.ServerCallContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A {@link BenchHandler} whose {@code echo} shows the call's headers both ways: a call carrying the
 * request header {@value #ECHO} gets that header's value back as its result instead of its payload,
 * and the reply carries the response header {@value #ECHOED} with the same value. A call without
 * the header is echoed as usual. Peers on every wire kind that carries headers (THeader info
 * headers, HTTP header fields) check against it.
 */
public class HeaderEchoHandler extends BenchHandler {

  /** The request header whose value {@code echo} returns. */
  public static final String ECHO = "x-echo";

  /** The response header set to the value of {@value #ECHO}. */
  public static final String ECHOED = "x-echoed";

  @Override
  public ByteBuffer echo(ByteBuffer payload) {
    ServerCallContext context = ServerCallContext.current();
    String echoed = context.headers().get(ECHO);
    if (echoed == null) {
      return super.echo(payload);
    }
    context.setResponseHeader(ECHOED, echoed);
    return ByteBuffer.wrap(echoed.getBytes(StandardCharsets.UTF_8));
  }
}
