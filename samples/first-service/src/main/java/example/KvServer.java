package example;

import example.kv.KeyValue;
import example.kv.NotFound;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class KvServer {
  /** The service: the generated interface, implemented by your code. */
  static class Handler implements KeyValue.Iface {
    private final Map<String, String> values = new ConcurrentHashMap<>();

    @Override
    public void put(String key, String value) {
      values.put(key, value);
    }

    @Override
    public String get(String key) throws NotFound {
      String value = values.get(key);
      if (value == null) {
        throw new NotFound(key);
      }
      return value;
    }
  }

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 9090;
    try (ThriftServer server = NettyThriftServer.builder()
        .processor(new KeyValue.Processor<>(new Handler()))
        .ioStrategy(IoStrategy.WORKER)                     // handlers run on a worker pool
        .bind(new InetSocketAddress("127.0.0.1", port))    // 0: any free port
        .build()
        .start()) {
      System.out.println("listening on port " + server.localAddress().getPort());
      System.in.read();                                    // Enter or end of input stops it
    }                                                      // close: stop accepting, drain, close
    System.out.println("stopped");
  }
}
