package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.thriftnio.testkit.leak.LeakCheckExtension;
import io.thriftnio.testkit.leak.LeakReports;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The leak check that runs after every test and test class of this module (registered by {@code
 * META-INF/services}) catches a buffer that was never released. The check is called here by hand,
 * on a leak made on purpose, so that this test can pass.
 */
@Timeout(60)
class LeakCheckExtensionTest {

  @Test
  void theFailingDetectorIsInstalledAtParanoidLevel() {
    assertThat(LeakReports.activeForBuffers()).isTrue();
  }

  @Test
  void aBufferLeakedOnPurposeFailsTheCheckWithItsAllocationRecord() {
    LeakCheckExtension.check("the start of this test"); // nothing pending from earlier tests
    leakOneBuffer();
    // Collection is up to the JVM: a few rounds, each collecting and draining Netty's queue.
    AssertionError failure = null;
    for (int round = 0; round < 20 && failure == null; round++) {
      try {
        LeakCheckExtension.check("this test");
      } catch (AssertionError e) {
        failure = e;
      }
    }
    assertThat(failure).as("a leak report").isNotNull();
    assertThat(failure.getMessage())
        .contains("LEAK: ByteBuf.release() was not called")
        .contains("leakOneBuffer");
    // Taken: the extension's own check after this test passes.
    assertThat(LeakReports.take()).isEmpty();
  }

  /**
   * The collection after each test class is what finds a leak that no collection found during the
   * class (the check after each test only takes what the detector has already reported).
   */
  @Test
  void theCheckAfterTheClassFindsALeakWithItsAllocationRecord() {
    LeakCheckExtension.check("the start of this test"); // nothing pending from earlier tests
    leakOneBuffer();
    LeakCheckExtension extension = new LeakCheckExtension();
    ExtensionContext context =
        (ExtensionContext)
            Proxy.newProxyInstance(
                ExtensionContext.class.getClassLoader(),
                new Class<?>[] {ExtensionContext.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getDisplayName")) {
                    return "a class that leaked";
                  }
                  throw new UnsupportedOperationException(method.getName());
                });
    // Collection is up to the JVM: a few rounds, each collecting three times.
    AssertionError failure = null;
    for (int round = 0; round < 20 && failure == null; round++) {
      try {
        extension.afterAll(context);
      } catch (AssertionError e) {
        failure = e;
      }
    }
    assertThat(failure).as("a leak report").isNotNull();
    assertThat(failure.getMessage())
        .contains("the end of a class that leaked")
        .contains("LEAK: ByteBuf.release() was not called")
        .contains("leakOneBuffer");
    assertThat(LeakReports.take()).isEmpty();
  }

  @Test
  void aReleasedBufferPassesTheCheck() {
    ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(64).writeLong(1);
    buf.release();
    LeakCheckExtension.check("this test");
  }

  private static void leakOneBuffer() {
    ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(64);
    buf.writeLong(42); // dropped unreleased
  }
}
