package example;

import example.greeter.Greeter;
import io.thriftnio.spring.boot.ThriftService;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;

/** The service: the generated interface, implemented by your code, served on thrift.server.port. */
@ThriftService
@Component
public class GreeterHandler implements Greeter.Iface {
  private final AtomicInteger running = new AtomicInteger();

  @Override
  public String greet(String name) {
    return "Hello, " + name;
  }

  @Override
  public String greetSlowly(String name, int millis) throws org.apache.thrift.TException {
    running.incrementAndGet();
    try {
      Thread.sleep(millis); // stands for real work
      return greet(name);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new org.apache.thrift.TException("interrupted", e);
    } finally {
      running.decrementAndGet();
    }
  }

  /** Calls of greetSlowly running now. */
  public int running() {
    return running.get();
  }
}
