package io.thriftnio.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.HeldLocks;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.env.StandardEnvironment;

/**
 * The lifecycle's callbacks (the {@code onStart} hooks, the address listeners) run under none of
 * its locks: one that stops the server from another thread and waits for it does not deadlock the
 * start (issue 38).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThriftServerLifecycleCallbacksTest {

  private final ThriftServer server =
      NettyThriftServer.builder()
          .processor(new BenchService.Processor<>(new BenchHandler()))
          .ioThreads(1)
          .bind(new InetSocketAddress("127.0.0.1", 0))
          .build();
  private final AtomicReference<ThriftServerLifecycle> lifecycle = new AtomicReference<>();
  private final List<String> held = new CopyOnWriteArrayList<>();
  private final AtomicReference<Object> outcome = new AtomicReference<>();

  @AfterEach
  void closeServer() {
    server.close();
  }

  /** Stops the server on another thread and waits (as an application that gives up would). */
  private void stopFromAnotherThreadAndWait() {
    held.addAll(HeldLocks.ofLibrary());
    try {
      CompletableFuture.runAsync(() -> lifecycle.get().stop()).get(5, TimeUnit.SECONDS);
      outcome.set("stopped");
    } catch (Exception e) {
      outcome.set(e);
    }
  }

  private ThriftServerLifecycle lifecycle(List<Consumer<ThriftServer>> onStart) {
    ThriftServerLifecycle l =
        new ThriftServerLifecycle(server, List.of("bench"), new StandardEnvironment(), onStart);
    lifecycle.set(l);
    return l;
  }

  @Test
  void anOnStartHookStopsTheServerFromAnotherThread() {
    ThriftServerLifecycle l = lifecycle(List.of(s -> stopFromAnotherThreadAndWait()));

    l.start();

    assertThat(outcome.get()).isEqualTo("stopped");
    assertThat(held).as("library locks held while the hook ran").isEmpty();
    assertThat(l.state()).isEqualTo(ThriftServerLifecycle.State.STOPPED);
    assertThat(server.isRunning()).isFalse();
  }

  @Test
  void anAddressListenerStopsTheServerFromAnotherThread() {
    ThriftServerLifecycle l = lifecycle(List.of());
    List<InetSocketAddress> told = new CopyOnWriteArrayList<>();
    l.onServing(
        address -> {
          told.add(address);
          stopFromAnotherThreadAndWait();
        });

    l.start();

    assertThat(outcome.get()).isEqualTo("stopped");
    assertThat(told).containsExactly(server.localAddress());
    assertThat(held).as("library locks held while the listener ran").isEmpty();
    assertThat(l.state()).isEqualTo(ThriftServerLifecycle.State.STOPPED);
  }

  @Test
  void aListenerAddedWhileTheHooksRunIsToldOnce() {
    List<InetSocketAddress> told = new CopyOnWriteArrayList<>();
    ThriftServerLifecycle l =
        lifecycle(
            List.of(
                s -> {
                  held.addAll(HeldLocks.ofLibrary());
                  // Another thread adds a listener while the start is still announcing.
                  CompletableFuture.runAsync(() -> lifecycle.get().onServing(told::add)).join();
                }));

    l.start();

    assertThat(told).containsExactly(server.localAddress());
    assertThat(held).isEmpty();
  }
}
