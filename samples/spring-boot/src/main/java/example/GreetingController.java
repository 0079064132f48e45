package example;

import example.greeter.Greeter;
import org.apache.thrift.TException;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** A client: an HTTP endpoint that calls the Thrift service through the pooled Greeter.Iface. */
@RestController
public class GreetingController {
  private final Greeter.Iface greeter;

  public GreetingController(@Qualifier("greeter") Greeter.Iface greeter) {
    this.greeter = greeter; // thrift.clients.greeter: each call borrows a pooled connection
  }

  @GetMapping("/hello")
  public String hello(@RequestParam String name) throws TException {
    return greeter.greet(name);
  }
}
