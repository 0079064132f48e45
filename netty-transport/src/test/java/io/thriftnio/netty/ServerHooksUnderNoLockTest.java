package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.HeldLocks;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server's before-drain hooks run under none of its locks (issue 38): a hook that asks the
 * server, from another thread, whether it runs and whether a hook may still be added, and waits for
 * the answers, does not stall the close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerHooksUnderNoLockTest {

  @Test
  void aBeforeDrainHookAsksTheServerFromAnotherThread() throws Exception {
    ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioThreads(1)
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start();
    List<String> held = new CopyOnWriteArrayList<>();
    List<Object> answers = new CopyOnWriteArrayList<>();
    assertThat(
            server.beforeDrain(
                () -> {
                  held.addAll(HeldLocks.ofLibrary());
                  try {
                    answers.add(
                        CompletableFuture.supplyAsync(server::isRunning).get(5, TimeUnit.SECONDS));
                    answers.add(
                        CompletableFuture.supplyAsync(() -> server.beforeDrain(() -> {}))
                            .get(5, TimeUnit.SECONDS));
                  } catch (Exception e) {
                    answers.add(e);
                  }
                }))
        .isTrue();

    server.close();

    // Closing already: not running, and a hook added now would not run.
    assertThat(answers).containsExactly(false, false);
    assertThat(held).as("library locks held while the hook ran").isEmpty();
  }
}
