package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.settings.SettingException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.apache.thrift.TProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A setting the chosen configuration would ignore is refused when the server or the options are
 * built, with a message naming the setting, its value and why; the same settings in a configuration
 * that uses them build.
 */
@Timeout(10)
class IgnoredSettingsTest {
  private static final TProcessor NOOP = (in, out) -> {};
  private static final Executor DIRECT = Runnable::run;

  private static ServerConfig server(UnaryOperator<ServerBuilderTest.StubBuilder> settings) {
    return settings
        .apply(
            new ServerBuilderTest.StubBuilder()
                .processor(NOOP)
                .bind(new InetSocketAddress("127.0.0.1", 0)))
        .build()
        .config();
  }

  @Test
  void anHttpPathWithoutHttpIsRefused() {
    assertThatThrownBy(() -> server(b -> b.httpPath("/rpc")))
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "httpPath: '/rpc' (expected: unset; ignored with wireKinds [FRAMED] without HTTP)");
    assertThatThrownBy(() -> server(b -> b.wireKinds(WireKind.UNFRAMED).httpPath("/rpc")))
        .hasMessageStartingWith("httpPath: '/rpc' (expected: unset; ignored with wireKinds");
    assertThat(server(b -> b.wireKinds(WireKind.FRAMED, WireKind.HTTP).httpPath("/rpc")).httpPath())
        .isEqualTo("/rpc");
  }

  @Test
  void aHealthPathWithoutHttpIsRefused() {
    assertThatThrownBy(() -> server(b -> b.healthPath("/health")))
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "healthPath: '/health' (expected: unset; ignored with wireKinds [FRAMED] without"
                + " HTTP)");
    assertThat(
            server(b -> b.wireKinds(WireKind.FRAMED, WireKind.HTTP).healthPath("/health"))
                .healthPath())
        .isEqualTo("/health");
    assertThat(server(b -> b.wireKinds(WireKind.HTTP)).healthPath()).as("default: none").isNull();
  }

  @Test
  void workerSettingsWithSameThreadAreRefused() {
    assertThatThrownBy(() -> server(b -> b.ioStrategy(IoStrategy.SAME_THREAD).workerThreads(8)))
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "workerThreads: 8 (expected: unset; ignored with ioStrategy SAME_THREAD, which runs no"
                + " workers)");
    assertThatThrownBy(
            () -> server(b -> b.ioStrategy(IoStrategy.SAME_THREAD).workerQueueCapacity(10)))
        .hasMessageStartingWith(
            "workerQueueCapacity: 10 (expected: unset; ignored with ioStrategy");
    assertThatThrownBy(
            () -> server(b -> b.ioStrategy(IoStrategy.SAME_THREAD).workerExecutor(DIRECT)))
        .hasMessageStartingWith("workerExecutor: ");
    assertThatThrownBy(
            () ->
                server(
                    b ->
                        b.ioStrategy(IoStrategy.SAME_THREAD)
                            .workerStartTimeout(Duration.ofSeconds(1))))
        .hasMessageStartingWith("workerStartTimeout: PT1S (expected: unset;");
  }

  @Test
  void leaderFollowerQueuesNothingAndAnExecutorReplacesThePoolSettings() {
    assertThatThrownBy(
            () -> server(b -> b.ioStrategy(IoStrategy.LEADER_FOLLOWER).workerQueueCapacity(10)))
        .hasMessage(
            "workerQueueCapacity: 10 (expected: unset; ignored with ioStrategy LEADER_FOLLOWER,"
                + " which queues no calls)");
    assertThat(
            server(b -> b.ioStrategy(IoStrategy.LEADER_FOLLOWER).workerThreads(4)).workerThreads())
        .isEqualTo(4);
    assertThatThrownBy(() -> server(b -> b.workerExecutor(DIRECT).workerThreads(4)))
        .hasMessage("workerThreads: 4 (expected: unset; ignored with a workerExecutor)");
    ServerConfig worker = server(b -> b.workerThreads(4).workerQueueCapacity(10));
    assertThat(worker.workerThreads()).isEqualTo(4);
    assertThat(worker.workerQueueCapacity()).isEqualTo(10);
  }

  @Test
  void clientOptionsCheckEveryValueAtBuildInOneForm() {
    ClientOptions.Builder b = ClientOptions.builder().callTimeout(Duration.ofSeconds(-1));
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("callTimeout: PT-1S (expected: > 0)");
    assertThatThrownBy(() -> ClientOptions.builder().maxCallsInFlightPerConnection(0).build())
        .hasMessage("maxCallsInFlightPerConnection: 0 (expected: > 0)");
    assertThatThrownBy(
            () -> ClientOptions.builder().httpPath("no-slash").wireKind(WireKind.HTTP).build())
        .hasMessageStartingWith("httpPath: \"no-slash\" (expected: an absolute path");
  }

  @Test
  void clientOptionsRefuseAPathWithoutHttpAndHeader() {
    assertThatThrownBy(() -> ClientOptions.builder().httpPath("/rpc").build())
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "httpPath: \"/rpc\" (expected: no path with wireKind FRAMED, which would ignore it;"
                + " set wireKind(HTTP) or drop the path)");
    assertThatThrownBy(
            () -> ClientOptions.builder().wireKind(WireKind.HEADER).httpPath("/rpc").build())
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("httpPath: \"/rpc\" (expected: no path with wireKind HEADER");
    assertThat(ClientOptions.builder().wireKind(WireKind.HEADER).build().wireKind())
        .isEqualTo(WireKind.HEADER);
    assertThat(ClientOptions.builder().wireKind(WireKind.HTTP).httpPath("/rpc").build().httpPath())
        .isEqualTo("/rpc");
  }

  @Test
  void toBuilderCarriesEverySetting() {
    ClientOptions o =
        ClientOptions.builder()
            .connectTimeout(Duration.ofSeconds(1))
            .callTimeout(Duration.ofSeconds(2))
            .lateReplyTimeout(Duration.ofSeconds(3))
            .maxFrameSize(1000)
            .maxCallsInFlightPerConnection(7)
            .callbackExecutor(DIRECT)
            .wireKind(WireKind.HTTP)
            .httpPath("/rpc")
            .argumentHeaders(true)
            .build();
    ClientOptions copy = o.toBuilder().build();
    assertThat(copy.argumentHeaders())
        .as("was dropped by toBuilder, so a channel pool sent no trace context in the arguments")
        .isTrue();
    assertThat(copy).hasToString(o.toString());
    assertThat(copy.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(copy.callTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(copy.lateReplyTimeout())
        .as("was dropped by toBuilder before")
        .isEqualTo(Duration.ofSeconds(3));
    assertThat(copy.maxFrameSize()).isEqualTo(1000);
    assertThat(copy.maxCallsInFlightPerConnection()).isEqualTo(7);
    assertThat(copy.callbackExecutor()).isSameAs(DIRECT);
    assertThat(copy.wireKind()).isEqualTo(WireKind.HTTP);
    assertThat(copy.httpPath()).isEqualTo("/rpc");
  }
}
