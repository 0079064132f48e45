package io.thriftnio.pool.internal;

import io.thriftnio.core.FrameInputTransport;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.TooManyPendingCallsException;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.pool.PoolClosedException;
import io.thriftnio.pool.PoolConfig;
import io.thriftnio.pool.PoolException;
import io.thriftnio.pool.PoolMetrics;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.PoolTimeoutException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared connections, each carrying up to {@code maxInFlight} calls, per endpoint.
 *
 * <p>Not built on commons-pool2: pool2 lends an object to one borrower at a time, while a
 * pipelining {@link ThriftChannel} is shared by many calls at once. Limits, endpoint choice, back-off
 * and errors follow the same {@link PoolConfig} as the exclusive pools. One lock guards the
 * bookkeeping; connecting and closing happen outside it.
 *
 * <p>The pool presents itself as one {@link ThriftChannel}, so core's {@code AsyncClients} encodes
 * and decodes on top of it. Each exchange checks that the reply's message header carries the
 * request's name and sequence id: a mismatch means the connection's request/response order is
 * broken, so it fails the call and closes the connection. ({@code AsyncClients} checks the
 * sequence id too, but it can only fail the call; only the pool knows which connection to drop.)
 *
 * <p>A failed exchange closes its connection, failing the other calls it carries, unless the
 * channel refused the request before writing anything: a {@link FrameSizeException} (request
 * above the channel's limit) or an {@link IllegalArgumentException}, which by the {@link
 * ThriftChannel} contract of the Netty and Grizzly channels fail only that call.
 *
 * <p>Borrowing happens on the calling thread of {@link #exchange} and {@link #send}: it may wait up
 * to {@link PoolConfig#borrowTimeout()} for a free slot, plus however long the {@link Opener}
 * takes to connect.
 */
public final class MultiplexedPool implements ThriftChannel {
  private static final Logger log = LoggerFactory.getLogger(MultiplexedPool.class);

  // Only a message header is read here, in place; the channel has enforced its frame limit.
  private static final TConfiguration HEADER_CONFIGURATION =
      new TConfiguration(
          Integer.MAX_VALUE, Integer.MAX_VALUE, TConfiguration.DEFAULT_RECURSION_DEPTH);

  /** Opens one channel; any exception is a connect failure. */
  public interface Opener {
    ThriftChannel connect(InetSocketAddress endpoint) throws Exception;
  }

  private static final class Conn {
    final InetSocketAddress endpoint;
    final ThriftChannel channel;
    int inFlight; // guarded by lock
    long idleSince = System.nanoTime(); // guarded by lock
    boolean removed; // guarded by lock

    Conn(InetSocketAddress endpoint, ThriftChannel channel) {
      this.endpoint = endpoint;
      this.channel = channel;
    }
  }

  private final String name;
  private final PoolConfig config;
  private final PoolMetrics metrics;
  private final Opener opener;
  private final TProtocolFactory protocolFactory;
  private final Predicate<? super ThriftChannel> validator;
  private final int maxInFlight;
  private final EndpointSelector selector;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<InetSocketAddress, List<Conn>> conns = new HashMap<>(); // guarded by lock
  private final Map<InetSocketAddress, Integer> connecting = new HashMap<>(); // guarded by lock
  private int total; // open + connecting, guarded by lock
  private int waiting; // guarded by lock
  private boolean closed; // guarded by lock
  private final ScheduledExecutorService evictor;
  private final LongAdder borrowed = new LongAdder();
  private final LongAdder created = new LongAdder();
  private final LongAdder destroyed = new LongAdder();
  private final LongAdder invalidated = new LongAdder();
  private final LongAdder timeouts = new LongAdder();
  private final LongAdder connectFailures = new LongAdder();

  public MultiplexedPool(
      String name,
      List<InetSocketAddress> endpoints,
      PoolConfig config,
      PoolMetrics metrics,
      Opener opener,
      TProtocolFactory protocolFactory,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight) {
    this(
        name,
        endpoints,
        config,
        metrics,
        opener,
        protocolFactory,
        validator,
        maxInFlight,
        System::nanoTime);
  }

  /** With the clock that times endpoint back-offs; tests drive it by hand. */
  MultiplexedPool(
      String name,
      List<InetSocketAddress> endpoints,
      PoolConfig config,
      PoolMetrics metrics,
      Opener opener,
      TProtocolFactory protocolFactory,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight,
      LongSupplier clock) {
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("endpoints: [] (expected: at least one)");
    }
    this.name = name;
    this.config = config;
    this.metrics = metrics;
    this.opener = opener;
    this.protocolFactory = protocolFactory;
    this.validator = validator;
    this.maxInFlight = maxInFlight;
    this.selector = new EndpointSelector(endpoints, config, this::activeOn, clock);
    for (EndpointState e : selector.all()) {
      conns.put(e.address, new ArrayList<>());
      connecting.put(e.address, 0);
    }
    if (config.evictionInterval().isZero()) {
      evictor = null;
    } else {
      ScheduledThreadPoolExecutor ex =
          new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("thrift-nio-pool-evictor"));
      ex.setRemoveOnCancelPolicy(true);
      long every = config.evictionInterval().toNanos();
      ex.scheduleWithFixedDelay(this::evict, every, every, TimeUnit.NANOSECONDS);
      evictor = ex;
    }
  }

  public List<InetSocketAddress> endpoints() {
    List<InetSocketAddress> list = new ArrayList<>();
    for (EndpointState e : selector.all()) {
      list.add(e.address);
    }
    return list;
  }

  // ---- ThriftChannel: what AsyncClients sees ----

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, null);
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    TMessage sent;
    Conn conn;
    try {
      sent = header(request);
      conn = acquire();
    } catch (TException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    CompletableFuture<ByteBuffer> reply;
    try {
      reply =
          timeout == null ? conn.channel.exchange(request) : conn.channel.exchange(request, timeout);
    } catch (RuntimeException e) {
      release(conn, connectionFailure(e));
      return CompletableFuture.failedFuture(e);
    }
    reply.whenComplete(
        (response, failure) -> {
          if (failure != null) {
            // Timed out (the channel closes itself), closed, or a bad frame: the connection's
            // failure, shared by its other calls. A refused request is only this call's.
            release(conn, connectionFailure(failure));
            result.completeExceptionally(failure);
            return;
          }
          TException mismatch = mismatch(sent, response, conn.endpoint);
          release(conn, mismatch);
          if (mismatch != null) {
            result.completeExceptionally(mismatch);
          } else {
            result.complete(response);
          }
        });
    return result;
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    Conn conn;
    try {
      conn = acquire();
    } catch (TException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> written;
    try {
      written = conn.channel.send(request);
    } catch (RuntimeException e) {
      release(conn, connectionFailure(e));
      return CompletableFuture.failedFuture(e);
    }
    return written.whenComplete((ok, failure) -> release(conn, connectionFailure(failure)));
  }

  /**
   * {@code failure} if it condemns the connection, or {@code null} if the channel refused the
   * request before writing a byte and stays usable for the calls it carries: a {@link
   * FrameSizeException}, a {@link TooManyPendingCallsException} (a channel whose own limit is
   * below {@code maxInFlight}) or an {@link IllegalArgumentException}, per the {@link ThriftChannel}
   * contract of the Netty and Grizzly channels. Without this, one oversized request would close a
   * connection and fail up to {@code maxInFlight - 1} unrelated calls.
   */
  private static Throwable connectionFailure(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof FrameSizeException
        || cause instanceof TooManyPendingCallsException
        || cause instanceof IllegalArgumentException) {
      return null;
    }
    return failure;
  }

  @Override
  public int pendingCalls() {
    lock.lock();
    try {
      int n = 0;
      for (List<Conn> list : conns.values()) {
        for (Conn c : list) {
          n += c.inFlight;
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isOpen() {
    lock.lock();
    try {
      return !closed;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SocketAddress remoteAddress() {
    return selector.all().get(0).address;
  }

  // ---- borrowing ----

  /** Reads a message's header in place: no copy of the (possibly large) message. */
  private TMessage header(ByteBuffer message) throws TException {
    return protocolFactory
        .getProtocol(FrameInputTransport.of(HEADER_CONFIGURATION, message.duplicate()))
        .readMessageBegin();
  }

  private TException mismatch(TMessage sent, ByteBuffer response, InetSocketAddress endpoint) {
    if (sent.type == TMessageType.ONEWAY) {
      return null;
    }
    TMessage got;
    try {
      got = header(response);
    } catch (TException | RuntimeException e) {
      return new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "unreadable reply header from " + Names.endpoint(endpoint) + " to " + sent.name,
          e);
    }
    if (got.seqid != sent.seqid || !got.name.equals(sent.name)) {
      return new TApplicationException(
          TApplicationException.BAD_SEQUENCE_ID,
          sent.name
              + " failed: out of sequence response from "
              + Names.endpoint(endpoint)
              + ": expected "
              + sent.name
              + "#"
              + sent.seqid
              + " but got "
              + got.name
              + "#"
              + got.seqid);
    }
    return null;
  }

  private Conn acquire() throws TException {
    List<EndpointState> tried = null;
    Throwable lastConnectFailure = null;
    while (true) {
      EndpointState.Lease lease = selector.select(tried);
      if (lease == null) {
        if (lastConnectFailure instanceof TException) {
          throw (TException) lastConnectFailure;
        }
        if (lastConnectFailure != null) {
          throw new TTransportException(
              TTransportException.NOT_OPEN, String.valueOf(lastConnectFailure), lastConnectFailure);
        }
        throw new PoolException(
            name
                + ": no endpoint available: "
                + selector.describeDown()
                + " ("
                + stats().gauges()
                + ")",
            null);
      }
      // As in EndpointPool.borrow: the lease ends with this attempt, however it ends.
      EndpointState endpoint = lease.endpoint();
      try (lease) {
        Conn c = acquireFrom(endpoint);
        endpoint.succeeded();
        return c;
      } catch (ConnectFailed f) {
        lastConnectFailure = f.getCause();
        if (tried == null) {
          tried = new ArrayList<>();
        }
        tried.add(endpoint);
      }
    }
  }

  private static final class ConnectFailed extends Exception {
    private static final long serialVersionUID = 1L;

    ConnectFailed(Throwable cause) {
      super(cause);
    }
  }

  private Conn acquireFrom(EndpointState endpoint) throws TException, ConnectFailed {
    InetSocketAddress ep = endpoint.address;
    long start = System.nanoTime();
    long deadline = start + config.borrowTimeout().toNanos();
    List<Conn> toClose = new ArrayList<>();
    boolean connect = false;
    lock.lock();
    try {
      while (true) {
        if (closed) {
          throw closedException();
        }
        Conn best = null;
        for (Conn c : conns.get(ep)) {
          if (c.inFlight < maxInFlight && (best == null || c.inFlight < best.inFlight)) {
            if (!c.channel.isOpen() || (c.inFlight == 0 && config.testOnBorrow() && !valid(c))) {
              if (!c.channel.isOpen() || c.inFlight == 0) {
                toClose.add(c);
              }
              continue;
            }
            best = c;
          }
        }
        for (Conn c : toClose) {
          if (remove(c)) {
            invalidated.increment();
            metrics.invalidated(ep, null);
          }
        }
        if (best != null) {
          best.inFlight++;
          borrowed.increment();
          metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
          return best;
        }
        int onEndpoint = conns.get(ep).size() + connecting.get(ep);
        if (onEndpoint < config.maxPerEndpoint()
            && (total < config.maxTotal() || closeIdleElsewhere(ep, toClose))) {
          connecting.merge(ep, 1, Integer::sum);
          total++;
          connect = true;
          break;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          timeouts.increment();
          Duration waited = Duration.ofNanos(System.nanoTime() - start);
          metrics.borrowTimedOut(ep, waited);
          throw new PoolTimeoutException(ep, waited, statsLocked());
        }
        waiting++;
        try {
          changed.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new PoolException(
              name
                  + ": interrupted while waiting for a connection to "
                  + Names.endpoint(ep)
                  + " ("
                  + statsLocked().gauges()
                  + ")",
              e);
        } finally {
          waiting--;
        }
      }
    } finally {
      lock.unlock();
      closeAll(toClose);
    }
    return connect(ep, start);
  }

  private Conn connect(InetSocketAddress ep, long start) throws TException, ConnectFailed {
    ThriftChannel channel;
    try {
      channel = opener.connect(ep);
      if (channel == null || !channel.isOpen()) {
        throw new TTransportException(
            TTransportException.NOT_OPEN, "channel factory gave a closed channel to " + ep);
      }
    } catch (Exception | Error e) {
      lock.lock();
      try {
        connecting.merge(ep, -1, Integer::sum);
        total--;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      connectFailures.increment();
      metrics.connectFailed(ep, e);
      if (!Thread.currentThread().isInterrupted()) {
        // An interrupted connect says nothing about the endpoint.
        selector.state(ep).connectFailed(e);
      }
      throw new ConnectFailed(e);
    }
    created.increment();
    metrics.created(ep);
    Conn c = new Conn(ep, channel);
    lock.lock();
    try {
      connecting.merge(ep, -1, Integer::sum);
      if (closed) {
        total--;
      } else {
        c.inFlight = 1;
        conns.get(ep).add(c);
        borrowed.increment();
        metrics.borrowed(ep, Duration.ofNanos(System.nanoTime() - start));
        return c;
      }
    } finally {
      lock.unlock();
    }
    closeOne(c);
    throw closedException();
  }

  /** Makes room under maxTotal by closing one idle connection to another endpoint. */
  private boolean closeIdleElsewhere(InetSocketAddress ep, List<Conn> toClose) {
    Conn oldest = null;
    for (Map.Entry<InetSocketAddress, List<Conn>> e : conns.entrySet()) {
      if (e.getKey().equals(ep)) {
        continue;
      }
      for (Conn c : e.getValue()) {
        if (c.inFlight == 0 && (oldest == null || c.idleSince - oldest.idleSince < 0)) {
          oldest = c;
        }
      }
    }
    if (oldest == null) {
      return false;
    }
    remove(oldest);
    toClose.add(oldest);
    return true;
  }

  private boolean valid(Conn c) {
    try {
      return c.channel.isOpen() && (validator == null || validator.test(c.channel));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Removes from the books (lock held); closing is the caller's, outside the lock. */
  private boolean remove(Conn c) {
    if (c.removed) {
      return false;
    }
    c.removed = true;
    conns.get(c.endpoint).remove(c);
    total--;
    changed.signalAll();
    return true;
  }

  private void release(Conn c, Throwable failure) {
    boolean close = false;
    lock.lock();
    try {
      c.inFlight--;
      if (c.inFlight == 0) {
        c.idleSince = System.nanoTime();
      }
      if (failure != null || !c.channel.isOpen() || closed) {
        // Whoever takes it off the books closes it; a second close would be counted twice.
        close = remove(c);
        if (close && failure != null) {
          invalidated.increment();
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (failure != null) {
      metrics.invalidated(c.endpoint, failure);
    }
    if (close) {
      closeOne(c);
    }
  }

  private void closeAll(List<Conn> list) {
    for (Conn c : list) {
      closeOne(c);
    }
    list.clear();
  }

  private void closeOne(Conn c) {
    try {
      c.channel.close();
    } catch (RuntimeException e) {
      log.warn("{}: closing a channel to {} threw", name, Names.endpoint(c.endpoint), e);
    }
    destroyed.increment();
    metrics.destroyed(c.endpoint);
  }

  /** Closes connections idle past the idle timeout, and idle ones that fail validation. */
  void evict() {
    List<Conn> toClose = new ArrayList<>();
    long now = System.nanoTime();
    long idleTimeout = config.idleTimeout().toNanos();
    lock.lock();
    try {
      for (List<Conn> list : conns.values()) {
        for (Conn c : new ArrayList<>(list)) {
          if (c.inFlight > 0) {
            continue;
          }
          boolean expired = idleTimeout > 0 && now - c.idleSince > idleTimeout;
          boolean invalid = !valid(c);
          if ((expired || invalid) && remove(c)) {
            if (invalid) {
              invalidated.increment();
            }
            toClose.add(c);
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn("{}: eviction run failed", name, e);
    } finally {
      lock.unlock();
    }
    closeAll(toClose);
  }

  /** Calls in flight on {@code endpoint}, for {@code LEAST_ACTIVE}. */
  int activeOn(InetSocketAddress endpoint) {
    lock.lock();
    try {
      int n = 0;
      for (Conn c : conns.get(endpoint)) {
        n += c.inFlight;
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** The up/down state of one endpoint; for tests. */
  EndpointState state(InetSocketAddress endpoint) {
    return selector.state(endpoint);
  }

  public PoolStats stats() {
    lock.lock();
    try {
      return statsLocked();
    } finally {
      lock.unlock();
    }
  }

  private PoolStats statsLocked() {
    int open = 0;
    int active = 0;
    for (List<Conn> list : conns.values()) {
      for (Conn c : list) {
        open++;
        if (c.inFlight > 0) {
          active++;
        }
      }
    }
    return new PoolStats(
        open,
        active,
        open - active,
        waiting,
        borrowed.sum(),
        created.sum(),
        destroyed.sum(),
        invalidated.sum(),
        timeouts.sum(),
        connectFailures.sum());
  }

  private PoolClosedException closedException() {
    return new PoolClosedException(name + " is closed (" + statsLocked().gauges() + ")");
  }

  /** Closes every connection (calls in flight fail) and wakes waiting borrowers. Idempotent. */
  @Override
  public void close() {
    List<Conn> toClose = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      for (List<Conn> list : conns.values()) {
        for (Conn c : new ArrayList<>(list)) {
          remove(c);
          toClose.add(c);
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (evictor != null) {
      evictor.shutdownNow();
    }
    closeAll(toClose);
  }
}
