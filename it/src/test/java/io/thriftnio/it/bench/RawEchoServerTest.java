package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The raw echo ceiling row echoes whole frames, however they arrive, and rejects bad lengths. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RawEchoServerTest {

  private RawEchoServer server;

  @BeforeEach
  void start() throws Exception {
    server = new RawEchoServer(new InetSocketAddress("127.0.0.1", 0), 2, 1024 * 1024).start();
  }

  @AfterEach
  void stop() {
    server.close();
    server.close(); // idempotent
  }

  private Socket connect() throws Exception {
    Socket s = new Socket();
    s.connect(server.address(), 5_000);
    s.setSoTimeout(10_000);
    return s;
  }

  private static byte[] frame(int length, int fill) {
    ByteBuffer b = ByteBuffer.allocate(4 + length).putInt(length);
    for (int i = 0; i < length; i++) {
      b.put((byte) (i * 31 + fill));
    }
    return b.array();
  }

  @Test
  void framesFedOneByteAtATimeComeBackWhole() throws Exception {
    byte[] f = frame(300, 1);
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      for (byte b : f) {
        out.write(b);
        out.flush();
      }
      byte[] echo = new byte[f.length];
      new DataInputStream(s.getInputStream()).readFully(echo);
      assertThat(echo).isEqualTo(f);
    }
    assertThat(server.acceptedConnections()).isEqualTo(1);
  }

  @Test
  void manyFramesInOneWriteAndAFrameLargerThanTheInitialBuffer() throws Exception {
    byte[] a = frame(10, 2);
    byte[] b = frame(200_000, 3);
    byte[] c = frame(1, 4);
    byte[] all = new byte[a.length + b.length + c.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    System.arraycopy(c, 0, all, a.length + b.length, c.length);
    try (Socket s = connect()) {
      s.getOutputStream().write(all);
      byte[] echo = new byte[all.length];
      new DataInputStream(s.getInputStream()).readFully(echo);
      assertThat(Arrays.equals(echo, all)).isTrue();
    }
  }

  @Test
  void aLengthAboveTheLimitOrNotPositiveClosesTheConnection() throws Exception {
    for (int bad : new int[] {1024 * 1024 + 1, 0, -1}) {
      try (Socket s = connect()) {
        s.getOutputStream().write(ByteBuffer.allocate(4).putInt(bad).array());
        assertThat(s.getInputStream().read()).as("length " + bad).isEqualTo(-1);
      }
    }
    // The maximum itself is accepted.
    byte[] max = frame(1024 * 1024, 5);
    try (Socket s = connect()) {
      s.getOutputStream().write(max);
      byte[] echo = new byte[max.length];
      new DataInputStream(s.getInputStream()).readFully(echo);
      assertThat(Arrays.equals(echo, max)).isTrue();
    }
  }
}
