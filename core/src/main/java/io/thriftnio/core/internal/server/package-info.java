/**
 * The server call path, written once for every IO adapter. Not an API: anything here may change in
 * any release.
 *
 * <p>Design. An adapter (Netty's {@code ThriftServerHandler}, Grizzly's {@code ThriftServerFilter},
 * the in-memory connection of the tests) turns bytes into request messages and implements {@link
 * io.thriftnio.core.internal.server.ServerConnection}, a small interface of IO verbs: write one
 * reply buffer (its length already patched), flush, resume reading, close after the writes issued
 * so far (optionally half-closing first), run a task on the IO thread, release a request's memory.
 * Everything that decides lives here, in one {@link
 * io.thriftnio.core.internal.server.CallSequencer} per connection over a server-wide {@link
 * io.thriftnio.core.internal.server.CallPath}: where a call runs ({@code SAME_THREAD} inline,
 * {@code WORKER} one task per request, so one connection's pipelined calls run in parallel), the
 * order of replies, the per-connection in-flight limit, overload refusals, what a bad request or a
 * refused frame gets, the drain, and what is counted, from {@link
 * io.thriftnio.core.internal.server.ProcessorInvoker}'s own outcome.
 *
 * <pre>
 *  adapter: bytes -&gt; one request message --onRequest--&gt; CallSequencer --dispatch--&gt; invoker
 *                                                          |  (inline or worker)
 *  adapter: write(reply) ... flush()  &lt;--one writer, request order--+  &lt;--completion--+
 * </pre>
 *
 * <p>The wire is core's {@code io.thriftnio.core.wire}, read by each adapter's decoder: the
 * sequencer takes one request message with its envelope and gives one reply frame, which the
 * envelope turns into the bytes that leave (a frame, a bare message, an HTTP response). Replies are
 * never written under a lock; replies completed off the IO thread are handed to it once per batch,
 * and the replies of one read batch are flushed once.
 *
 * <p>Around the connections, also once for every transport: {@link
 * io.thriftnio.core.internal.server.ServerLifecycle} (new, running, closing, closed; idempotent
 * start and close; the drain and its timeout, in {@link
 * io.thriftnio.core.internal.server.ServerDrain}, with the listening socket kept open for health
 * probes when the server has a health path; the worker pool; a close in a call or on an IO thread
 * handed to a close thread), {@link io.thriftnio.core.internal.server.ConnectionRegistry} (admit or
 * refuse against {@code maxConnections}, or admit for the health probe only during a drain; count,
 * log refusals and TLS failures thinned out, drain, wait until all closed) over each adapter's
 * {@link io.thriftnio.core.internal.server.ConnectionHandle}, and {@link
 * io.thriftnio.core.internal.server.TimeoutPolicy}, a pure decision over a connection's clocks that
 * a transport's timer or sweep applies. A transport's server implements {@link
 * io.thriftnio.core.internal.server.ServerLifecycle.Transport}: bind, stop accepting, tell its IO
 * threads, release its threads. None of these knows the framing: a connection is registered at
 * accept, before any codec is chosen, and carries its peer's addresses and TLS identity.
 *
 * <pre>
 *  ServerLifecycle --bind / stopAccepting / release--&gt; transport's server
 *       |  admitDraining / admitProbesOnly / refuseNew, drainAll, awaitDrained, closeAll
 *  ConnectionRegistry --startDrain / closeNow--&gt; ConnectionHandle (one per connection)
 *  TimeoutPolicy.decide(now, clocks) --verdict--&gt; transport closes, registry counts and logs
 *                                    --next, aged--&gt; transport re-arms its timer, marks calls aged
 * </pre>
 *
 * <p>Connection listeners, when a server has any: {@link
 * io.thriftnio.core.internal.server.ConnectionEvents} calls them, each guarded, under no lock; a
 * {@link io.thriftnio.core.internal.server.RegisteredConnection} fires its open (at admission, or
 * after the TLS handshake) and its close once each, in that order, with the cause noted first by
 * whoever decided the close; the call path runs the per-call event on the call's thread, before the
 * processor, through {@link io.thriftnio.core.internal.server.ServerConnection#registration()}.
 *
 * <p>Locking: a connection's call state (its calls in reply order, the dispatch of waiting
 * requests, the ordered writer, the deadlines) is one state machine in {@link
 * io.thriftnio.core.internal.server.CallSequencer}, guarded by a lock private to it
 * ({@code @GuardedBy}); nothing outside that class runs while it is held.
 *
 * <p>The invoker: {@link io.thriftnio.core.internal.server.ProcessorInvoker} runs a processor for
 * one request, with its interceptors ({@code ServerInterception}) and its call's phases ({@code
 * InvokerCall}); it creates the call's {@code ServerCallContext} and makes it current through
 * {@link io.thriftnio.core.util.internal.ContextAccess}, the route to what the API class keeps out
 * of its API.
 *
 * <p>Shared helpers: {@link io.thriftnio.core.internal.server.Refusals} answers every call the
 * server ends itself (overload, timeout, not run, unreadable header) by one rule: a two-way call is
 * answered, or its connection closes; {@link io.thriftnio.core.internal.server.ErrorReplies} writes
 * the replies the server makes itself.
 */
package io.thriftnio.core.internal.server;
