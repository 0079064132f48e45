package io.thriftnio.core;

/**
 * How Thrift messages are delimited on a connection. A server accepts one or more of them on the
 * same port ({@link ServerBuilder#wireKinds}); each connection's first bytes say which one it
 * speaks, and its replies go back the same way.
 *
 * <pre>
 * FRAMED    | 00 00 00 0B | 80 01 00 01 ... |     a 4-byte big-endian length, then the message
 * UNFRAMED  | 80 01 00 01 ... | 80 01 ...         messages back to back: strict binary (80 01),
 *           | 82 21 ... |                         compact (82) or JSON ([)
 * HTTP      | POST / HTTP/1.1 ... \r\n\r\n | 80 01 ... |   an HTTP/1.1 request, the body one message
 * HEADER    | 00 00 00 1A | 0F FF | flags | seqid | size | header | 80 01 ... |   THeader
 * SASL      | 01 | 00 00 00 06 | GSSAPI | 02 | ... |  then | 00 00 00 0B | message or wrapped |
 * </pre>
 */
public enum WireKind {
  /**
   * Thrift's framed transport ({@code TFramedTransport}, {@code TFastFramedTransport}): each
   * message is preceded by its length. The default, and the only kind a server accepts unless told
   * otherwise.
   */
  FRAMED,

  /**
   * Messages without a length prefix, as a plain {@code TSocket} or a {@code TBufferedTransport}
   * sends them (Python's, Ruby's and PHP's default clients, the HBase Thrift server's peers). The
   * server finds each message's end by walking it with its protocol's encoding: strict {@code
   * TBinaryProtocol}, {@code TCompactProtocol} or {@code TJSONProtocol}; the non-strict binary
   * encoding (no version word) cannot be told from a frame length and is not accepted.
   */
  UNFRAMED,

  /**
   * Thrift over HTTP/1.1, as libthrift's {@code THttpClient} and {@code TServlet} speak it: each
   * call is a {@code POST} to the server's {@link ServerBuilder#httpPath} whose body is one message
   * (in the server's protocol); the reply is a {@code 200} whose body is the reply message (empty
   * for a oneway call). Keep-alive and pipelined requests are served; {@code Content-Length} and
   * chunked bodies, and {@code Expect: 100-continue}, are understood. A connection speaks HTTP when
   * its first byte is an upper-case letter (a method name).
   */
  HTTP,

  /**
   * Thrift's header transport (THeader: {@code THeaderTransport} in C++, Python, Go, node.js and
   * Ruby; fbthrift's default), server side: a frame whose bytes 4-5 are {@code 0FFF}, then flags, a
   * sequence id and a header section (the inner protocol id, transforms, info headers) before the
   * message. Each request's message is read, and its reply written, in the protocol its header
   * names (binary or compact), whatever the server's own protocol; a zlib request gets a zlib
   * reply; the request's key/value info headers reach the handler through {@link
   * ServerCallContext#headers()}. Other transforms (HMAC, snappy) and protocol ids are refused.
   *
   * <p>Clients speak it with {@code ClientOptions.wireKind(HEADER)}: the sync transport, the
   * pipelined channel, and the three pools ({@code ThriftClientPool} through this library's sync
   * transport, {@code ThriftChannelPool}, and {@code ThriftAsyncClientPool}'s stock {@code
   * AsyncClient}s). Their requests carry the call's headers and {@value
   * ServerCallContext#CLIENT_TIMEOUT_HEADER}; replies are read with the server's limits, zlib
   * included, and their info headers reach the caller. Only {@code ClientTransportFactory.stock}'s
   * sockets refuse it.
   */
  HEADER,

  /**
   * libthrift's SASL transport ({@code TSaslServerTransport}, {@code TSaslClientTransport}, {@code
   * TSaslNonblockingServer}): a negotiation first (messages of a status byte, a 4-byte length and a
   * payload, starting with {@code START} and the mechanism's name), then length-prefixed frames as
   * {@link #FRAMED} has, each wrapped by the mechanism when the negotiated quality of protection is
   * {@code auth-int} or {@code auth-conf}. Needs the server's or the client's SASL settings ({@code
   * io.thriftnio.core.sasl}); a server that accepts only this kind serves no peer that has not
   * authenticated. The calls of a connection see its identity in {@link ServerCallContext#sasl()}.
   */
  SASL
}
