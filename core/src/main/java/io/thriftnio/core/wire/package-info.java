/**
 * The wire: every way thrift-nio carries Thrift messages, written once, behind one decoder SPI that
 * each IO adapter binds to its own buffers. An SPI for the IO adapters of thrift-nio, not for
 * applications: it may change in any 0.x release.
 *
 * <h2>The SPI an adapter sees</h2>
 *
 * <pre>
 *  adapter's buffer --ByteSource--&gt; ServerCodec (per server connection) --Decoded--&gt; adapter
 *                                   ClientCodec (per client connection)
 *
 *  ByteSource    the adapter's bytes, read by absolute index, in bulk (ByteBuf, Buffer, byte[])
 *  ServerCodec   sniffs the kind from the first bytes (Sniffer), then decodes with its Decoder;
 *                logs refusals; knows whether a message is in progress (the frame timeout)
 *  ClientCodec   the head before each request, and the replies of one connection
 *  Decoded       one step's event: NEED_MORE, MESSAGE, ANSWER, FAILED, SKIPPED, REFUSED, AWAIT,
 *                with what goes with it (consumed bytes, payload slice or array, envelope, ...)
 *  Envelope      how one request's reply leaves; travels with the call to its reply
 *  Refusal       why a connection cannot be read on, and what to answer before closing
 *  ReplyEvent    what a client's reply says besides its payload, for adapters passing messages on
 *  WireFormat      one kind a server recognises: detect(first bytes), newDecoder, its envelope
 *  WireSettings  a server's limit, accepted transports, header protocol, HTTP path, kinds
 * </pre>
 *
 * <p>An adapter calls {@code next(bytes, start, available)} in a loop, consumes {@link
 * io.thriftnio.core.wire.Decoded#consumed()} bytes after each event and acts on the event; a
 * payload is a slice of its own buffer (a retained slice on Netty, a split-off view on Grizzly) or,
 * when the kind made one (a chunked HTTP body), an array of its own. Nothing else crosses the line:
 * the call path ({@code CallSequencer}) takes the payload and its envelope, and gives the reply
 * frame back to the envelope.
 *
 * <h2>The kinds</h2>
 *
 * <pre>
 * kind              detect (Sniffer order)        decoder                 envelope
 * UNFRAMED_BINARY   80                            UnframedDecoder         UNFRAMED (shared)
 * UNFRAMED_COMPACT  82                            (BinaryWalk,            UNFRAMED
 * UNFRAMED_JSON     [                              CompactWalk, JsonWalk) UNFRAMED
 * HTTP              A..Z                          HttpRequestDecoder      HttpEnvelope (per request)
 * SASL              01                            SaslServerDecoder       SaslEnvelope (per connection)
 * HEADER            00..7f, then 0FFF at 4        THeaderDecoder          THeaderEnvelope (per request)
 * FRAMED            00..7f                        FramedDecoder           FRAMED (shared)
 * </pre>
 *
 * <p>Every length a kind reads is bounded before anything is allocated or waited for: {@code
 * maxFrameSize} for frames, messages and bodies; HTTP's header section; the nesting of an unframed
 * message. A kind refuses with a {@link io.thriftnio.core.wire.Refusal} that names the peer and the
 * numbers, and the codec logs it once.
 *
 * <h2>Adding a wire kind</h2>
 *
 * <p>A new kind is one class family here and a line in {@link io.thriftnio.core.wire.Sniffer}: a
 * {@link io.thriftnio.core.wire.WireFormat} (how its first bytes look, its decoder, whether its
 * requests share one envelope), a {@link io.thriftnio.core.wire.Decoder} for each role, and an
 * {@link io.thriftnio.core.wire.Envelope} for its replies. The adapters do not change: they already
 * pass on whatever a {@code Decoded} event says.
 *
 * <p><b>THeader</b> ({@code LENGTH | 0FFF | FLAGS | SEQUENCE | HEADER_SIZE | header | payload}),
 * the model of a kind with per-request envelopes that name the protocol.
 *
 * <ul>
 *   <li>{@code THeaderDecoder.KIND.detect}: {@code UNDECIDED} until six bytes are here (a 1-byte
 *       frame never is: a length below the fixed part says {@code NO} at four), then {@code YES}
 *       when bytes 4-5 are {@code 0FFF}; its line goes before {@code FramedDecoder.KIND}, whose
 *       first bytes it shares.
 *   <li>{@code THeaderDecoder}: the length against {@code maxFrameSize} first (as framed); the
 *       header section ({@code THeaderSection}: varints, transforms, info headers) bounded by
 *       {@code HEADER_SIZE} and by its own limits; a zlib payload inflated into an array of its own
 *       ({@link io.thriftnio.core.wire.Decoded#message(int, byte[],
 *       io.thriftnio.core.wire.Envelope)}), the inflater stopped at {@code maxFrameSize} ({@code
 *       THeaderZlib}); an uncompressed payload stays a slice.
 *   <li>{@code THeaderEnvelope}, one per request: the protocol id, flags, sequence id, transforms
 *       and the info headers. {@code encode} writes the reply's header before the message (or a
 *       compressed copy of it). The call path reads {@link
 *       io.thriftnio.core.wire.Envelope#protocol()} to read and write the call's messages in the
 *       caller's protocol, and {@link io.thriftnio.core.wire.Envelope#headers()} for the call
 *       context.
 *   <li>Out-of-order replies: {@code THeaderEnvelope.outOfOrder()} says whether the request set
 *       {@code SUPPORT_OUT_OF_ORDER} (0x01); the sequencer then writes its reply as its call ends.
 *       Response info headers: {@code Envelope.responseHeaders}, from the call context.
 *   <li>Not yet: fbthrift's persistent headers (info id 2, not in Apache's spec).
 * </ul>
 *
 * <p><b>SASL</b> ({@code STATUS | LENGTH | payload} negotiation, then {@code LENGTH | payload}),
 * the model of a kind with a connection-level handshake.
 *
 * <ul>
 *   <li>{@code SaslServerDecoder.KIND.detect}: {@code YES} on the status byte {@code START} (1);
 *       its line goes before THeader's and framed's (a server accepting both keeps {@code
 *       maxFrameSize} below 16 MiB, whose lengths start with 01: checked at build).
 *   <li>{@code SaslServerDecoder}: each negotiation message's length bounded by {@code
 *       maxNegotiationMessageSize} before allocation (a 2 GB length is refused from the five bytes
 *       that declared it); a mechanism's step (making the {@code SaslServer}, {@code
 *       evaluateResponse}) runs on {@link io.thriftnio.core.wire.SaslSettings#steps()} and the
 *       decoder returns {@code AWAIT} with the message consumed, the step to start ({@code
 *       Decoded.step()}: the adapter submits it once it holds no lock, since the executor may be
 *       the application's) and its completion as the stage; once it completes the adapter decodes
 *       again and the challenge leaves as an {@code ANSWER}, {@code OK} or {@code COMPLETE}. The
 *       negotiation's deadline is an {@code AWAIT} too (taken once, while waiting for the peer), so
 *       adapters need no timer of their own. A failure is {@link
 *       io.thriftnio.core.wire.Refusal#handshakeFailed} whose answer is the {@code BAD}/{@code
 *       ERROR} message, closed as {@code CloseCause.SASL_FAILURE}. After {@code COMPLETE} the same
 *       decoder reads frames: framed's decoder under {@code auth}, each frame unwrapped into an
 *       array of its own under {@code auth-int}/{@code auth-conf}.
 *   <li>{@code SaslEnvelope}, one per connection ({@link
 *       io.thriftnio.core.wire.Decoder#envelope()}): wraps each reply under the negotiated QOP, in
 *       reply order, and carries the identity ({@link
 *       io.thriftnio.core.wire.Envelope#saslIdentity()}) for the call context.
 * </ul>
 *
 * <p>HTTP already uses most of this: answers without a call ({@code 100 Continue}, refusals),
 * per-request envelopes (keep-alive, content type, the status line of the reply), payloads of its
 * own (chunked bodies).
 */
package io.thriftnio.core.wire;
