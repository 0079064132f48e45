package io.thriftnio.opentelemetry.agent;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.opentelemetry.ThriftTracing;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;

/**
 * The child JVM of {@code AgentInteropTest}, run under OpenTelemetry's Java agent. {@code stock}:
 * stock libthrift {@code TThreadPoolServer}s (framed, unframed) and a THeader server (thrift-nio's,
 * without this module: libthrift for Java has no THeader) and, on each {@code call <wire> <port>}
 * line read from stdin, a stock generated client's call. {@code nio}: a thrift-nio server with this
 * module's tracing on the agent's {@code GlobalOpenTelemetry}. Prints {@code LISTENING <name>
 * <port>} for each server and {@code CALLED <wire>} after each call; the agent exports its spans to
 * stderr as OTLP JSON.
 */
public final class AgentPeer {

  private AgentPeer() {}

  public static void main(String[] args) throws Exception {
    List<AutoCloseable> closing = new ArrayList<>();
    if (args[0].equals("stock")) {
      stockServer("FRAMED", new TBinaryProtocol.Factory(), true, closing);
      stockServer("UNFRAMED", new TBinaryProtocol.Factory(), false, closing);
      // libthrift for Java has no THeader: the agent's THeader peer is a thrift-nio server without
      // this module, whose generated processor the agent instruments as any TBaseProcessor.
      ThriftServer header =
          NettyThriftServer.builder()
              .processor(new BenchService.Processor<>(new BenchHandler()))
              .wireKinds(WireKind.HEADER)
              .bind(new InetSocketAddress("127.0.0.1", 0))
              .build()
              .start();
      closing.add(header);
      System.out.println(
          "LISTENING HEADER " + ((InetSocketAddress) header.localAddress()).getPort());
    } else {
      ThriftTracing tracing = ThriftTracing.create(GlobalOpenTelemetry.get(), "BenchService");
      ThriftServer server =
          NettyThriftServer.builder()
              .processor(new BenchService.Processor<>(new BenchHandler()))
              .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED, WireKind.HEADER)
              .addInterceptor(tracing.serverInterceptor())
              .bind(new InetSocketAddress("127.0.0.1", 0))
              .build()
              .start();
      closing.add(server);
      System.out.println("LISTENING nio " + ((InetSocketAddress) server.localAddress()).getPort());
    }
    System.out.println("READY");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] words = line.trim().split(" ");
      if (words[0].equals("call") || words[0].equals("callfailing")) {
        stockCall(words[1], Integer.parseInt(words[2]), words[0].equals("callfailing"));
        System.out.println("CALLED " + words[1]);
        System.out.flush();
      } else if (words[0].equals("exit")) {
        break;
      }
    }
    for (AutoCloseable c : closing) {
      c.close();
    }
    System.exit(0); // lets the agent flush its spans on the way out
  }

  private static void stockServer(
      String wire, TProtocolFactory protocol, boolean framed, List<AutoCloseable> closing)
      throws Exception {
    TServerSocket socket = new TServerSocket(new InetSocketAddress("127.0.0.1", 0));
    TThreadPoolServer.Args args =
        new TThreadPoolServer.Args(socket)
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocolFactory(protocol)
            .minWorkerThreads(1)
            .maxWorkerThreads(4);
    if (framed) {
      args.transportFactory(new TFramedTransport.Factory());
    }
    TServer server = new TThreadPoolServer(args);
    Thread serving = new Thread(server::serve, "stock-" + wire);
    serving.setDaemon(true);
    serving.start();
    closing.add(server::stop);
    System.out.println("LISTENING " + wire + " " + socket.getServerSocket().getLocalPort());
  }

  /**
   * A stock generated client's call of {@code get_last_sale} on {@code wire}; if {@code failing},
   * of {@code db_work(-1)}, which the handler fails with an exception the IDL does not declare: the
   * caller gets {@code TApplicationException(INTERNAL_ERROR)}.
   */
  private static void stockCall(String wire, int port, boolean failing) throws Exception {
    if (wire.equals("HEADER")) {
      // libthrift for Java has no THeader: the generated client (which the agent instruments)
      // over thrift-nio's THeader transport, with no interceptor of ours.
      try (NettyClientIo io = NettyClientIo.create(1)) {
        TTransport transport =
            io.openTransport(
                new InetSocketAddress("127.0.0.1", port),
                ClientOptions.builder().wireKind(WireKind.HEADER).build());
        try {
          call(new BenchService.Client(new TBinaryProtocol(transport)), failing);
        } finally {
          transport.close();
        }
      }
      return;
    }
    TTransport socket = new TSocket("127.0.0.1", port, 10_000);
    socket.open();
    try {
      TProtocol protocol =
          wire.equals("FRAMED")
              ? new TBinaryProtocol(new TFramedTransport(socket))
              : new TBinaryProtocol(socket);
      call(new BenchService.Client(protocol), failing);
    } finally {
      socket.close();
    }
  }

  private static void call(BenchService.Client client, boolean failing) throws Exception {
    if (!failing) {
      client.get_last_sale("AGENT");
      return;
    }
    try {
      client.db_work(-1);
      throw new IllegalStateException("db_work(-1) did not fail");
    } catch (TApplicationException expected) {
      // the failure the agent's client span records
    }
  }
}
