package example;

import static org.assertj.core.api.Assertions.assertThat;

import example.greeter.Greeter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the application on free ports, calls the service through the injected pool, reads
 * /actuator/health, /actuator/info and the meters, and shuts down with calls in flight: they all
 * complete, while health says the server is draining.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GreeterApplicationTest {

  private final HttpClient http = HttpClient.newHttpClient();
  private ConfigurableApplicationContext app;

  @AfterEach
  void close() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void servesCallsReportsHealthAndMetersAndDrainsCallsInFlight() throws Exception {
    app =
        SpringApplication.run(
            GreeterApplication.class,
            "--thrift.server.port=0",
            "--server.port=0",
            // the web server stops after the Thrift drain, so that health answers during it
            "--server.shutdown=immediate");
    String web = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
    assertThat(app.getEnvironment().getProperty("local.thrift.server.port")).isNotEqualTo("0");

    // A call through the controller, which calls through the injected pool.
    assertThat(get(web + "/hello?name=Ada").body()).isEqualTo("Hello, Ada");
    Greeter.Iface greeter =
        BeanFactoryAnnotationUtils.qualifiedBeanOfType(
            app.getBeanFactory(), Greeter.Iface.class, "greeter");
    assertThat(greeter.greet("Grace")).isEqualTo("Hello, Grace");

    // 200: the aggregate and each component UP (503 for DOWN and OUT_OF_SERVICE).
    assertThat(get(web + "/actuator/health").statusCode()).isEqualTo(200);
    HttpResponse<String> server = get(web + "/actuator/health/thriftServer");
    assertThat(server.statusCode()).isEqualTo(200);
    assertThat(server.body()).contains("\"status\":\"UP\"", "\"services\":[\"Greeter\"]");
    HttpResponse<String> clients = get(web + "/actuator/health/thriftClients");
    assertThat(clients.statusCode()).isEqualTo(200);
    assertThat(clients.body()).contains("\"greeter\":{\"status\":\"UP\"");

    HttpResponse<String> info = get(web + "/actuator/info");
    assertThat(info.statusCode()).isEqualTo(200);
    assertThat(info.body()).contains("\"thrift\":{\"version\":", "\"services\":[\"Greeter\"]");

    MeterRegistry meters = app.getBean(MeterRegistry.class);
    assertThat(meters.get("thrift.server.requests").tag("method", "greet").timer().count())
        .isEqualTo(2);
    assertThat(meters.get("thrift.pool.borrow").tag("pool", "greeter").timer().count())
        .isGreaterThanOrEqualTo(2);
    assertThat(get(web + "/actuator/metrics/thrift.server.requests").statusCode()).isEqualTo(200);

    // Shut down with calls in flight: every one completes.
    GreeterHandler handler = app.getBean(GreeterHandler.class);
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String name = "caller-" + i;
      calls.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return greeter.greetSlowly(name, 3_000);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    await(() -> handler.running() == 4, "4 calls running");
    CompletableFuture<Void> shutdown = CompletableFuture.runAsync(app::close);
    await(() -> statusOf(web + "/actuator/health") == 503, "health 503 while draining");
    assertThat(get(web + "/actuator/health/thriftServer").body())
        .contains("\"status\":\"OUT_OF_SERVICE\"");
    for (int i = 0; i < calls.size(); i++) {
      assertThat(calls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("Hello, caller-" + i);
    }
    shutdown.get(30, TimeUnit.SECONDS);
    assertThat(app.isActive()).isFalse();
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private int statusOf(String url) {
    try {
      return get(url).statusCode();
    } catch (Exception e) {
      return -1; // not answering (yet, or any more): the condition is not met
    }
  }

  /** Polls a condition with a deadline. */
  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
