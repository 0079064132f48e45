package example;

import example.kv.KeyValue;
import example.kv.NotFound;
import io.thriftnio.core.ClientIo;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

public class KvClient {
  public static void main(String[] args) throws Exception {
    InetSocketAddress server =
        new InetSocketAddress("127.0.0.1", args.length > 0 ? Integer.parseInt(args[0]) : 9090);

    // A pooled sync client: each call borrows a connection and gives it back.
    try (ThriftClientPool<KeyValue.Client> pool =
        ThriftClientPool.builder(KeyValue.Client::new).endpoints(server).build()) {
      KeyValue.Iface kv = pool.iface(KeyValue.Iface.class);
      kv.put("greeting", "hello");
      System.out.println("sync get: " + kv.get("greeting"));
      try {
        kv.get("nobody");
      } catch (NotFound e) {                               // the IDL's exception, as declared
        System.out.println("sync not found: " + e.getKey());
      }
    }

    // A pooled async client: pipelined channels, a CompletableFuture per call.
    try (ClientIo io = NettyClientIo.create();
        ThriftChannelPool<KeyValue.Client> pool =
            ThriftChannelPool.builder(KeyValue.Client::new).io(io).endpoints(server).build()) {
      KeyValue.FutureIface kv = pool.futureIface(KeyValue.FutureIface.class);
      CompletableFuture<Void> put = kv.put("answer", "42");   // returns at once
      put.get(10, TimeUnit.SECONDS);
      CompletableFuture<String> get = kv.get("answer");
      System.out.println("async get: " + get.get(10, TimeUnit.SECONDS));
    }
  }
}
