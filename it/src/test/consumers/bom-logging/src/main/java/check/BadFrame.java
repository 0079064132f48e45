package check;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;

/** Sends a server a frame whose length is -1: the server logs a WARN and closes the connection. */
public class BadFrame {
  public static void main(String[] args) throws Exception {
    TProcessor processor = (in, out) -> {
      throw new TException("no call expected");
    };
    try (ThriftServer server = NettyThriftServer.builder()
        .processor(processor)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .build()
        .start()) {
      try (Socket socket = new Socket()) {
        socket.connect(server.localAddress(), 10_000);
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(new byte[] {-1, -1, -1, -1});
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        System.out.println("read after the bad frame: " + in.read());
      }
    }
  }
}
