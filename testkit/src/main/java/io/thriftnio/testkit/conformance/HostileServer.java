package io.thriftnio.testkit.conformance;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.sasl.SaslPeers;
import io.thriftnio.testkit.tls.TestPki;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TIOStreamTransport;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TMemoryInputTransport;

/**
 * A plain blocking socket server for {@link HostileServerSuite}: it reads each request as its wire
 * kind frames it, then answers it as {@link #misbehave(Misbehaviour) told}, well ({@link
 * Misbehaviour#HEALTHY}: {@code BenchService} on a {@link BenchHandler}) or in one of the ways a
 * broken or hostile server does. One thread per connection; the misbehaviour is read per request,
 * so one server serves a whole matrix of cases one after the other. Binary protocol only.
 */
public final class HostileServer implements AutoCloseable {

  /** How the server frames messages, as a client under test is configured to. */
  public enum Wire {
    /** 4-byte length, then the message. */
    FRAMED,
    /** The message alone. */
    UNFRAMED,
    /** A THeader frame, binary protocol. */
    HEADER,
    /** An HTTP/1.1 POST and its 200 response. */
    HTTP,
    /** SASL PLAIN (quality of protection {@code auth}), then framed messages. */
    SASL,
    /** SASL DIGEST-MD5 with {@code auth-int}, then framed, wrapped messages. */
    SASL_INT,
    /** TLS, then framed messages. */
    TLS;

    /** The name in a report: {@code framed}, {@code sasl-int}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** What the server does with a request it has read. */
  public enum Misbehaviour {
    /** Answers as {@code BenchService} does. */
    HEALTHY,
    /** Declares a reply frame of 2 GiB - 1 (0x7fffffff), sends a few bytes, then holds. */
    OVERSIZE_FRAME,
    /** A small frame whose {@code binary} result declares 1.5 GiB. */
    HUGE_STRING,
    /**
     * A small frame whose {@code binary} result declares 48 MiB: over the clients' {@code
     * maxFrameSize}, under libthrift's default {@code maxMessageSize} (100 MB).
     */
    LARGE_STRING,
    /** A small frame whose {@code list} result declares 1.5 Gi elements (for {@code db_work}). */
    HUGE_LIST,
    /** The right reply under another sequence id. */
    OTHER_SEQID,
    /** The right reply under another method name. */
    OTHER_METHOD,
    /** The right reply with message type 9, no Thrift message type. */
    UNKNOWN_TYPE,
    /** The right reply, one byte every 200 ms. */
    TRICKLE,
    /** A well-framed envelope around 64 bytes that are no Thrift message. */
    GARBAGE,
    /** The first half of the right reply, then FIN. */
    TRUNCATED_FIN,
    /** The first half of the right reply, then a reset (SO_LINGER 0). */
    RESET,
    /** Reads and never answers. */
    SILENT,
    /** Answers every request twice. */
    TWICE,
    /** Reads the SASL START and never answers the negotiation. */
    SASL_STALL,
    /** Completes SASL {@code auth-int}, then answers with a frame that does not unwrap. */
    SASL_BAD_WRAP,
    /** Accepts the TCP connection and never answers the TLS handshake. */
    TLS_STALL
  }

  /** A declared length of 1.5 GiB. */
  public static final int HUGE = 1_610_612_736;

  /** A declared length of 48 MiB. */
  public static final int LARGE = 48 << 20;

  private static final int TRICKLE_MILLIS = 200;

  private final Wire wire;
  private final ServerSocket server;
  private final InetSocketAddress address;
  private final List<Socket> accepted = new CopyOnWriteArrayList<>();
  private final BenchService.Processor<BenchHandler> processor =
      new BenchService.Processor<>(new BenchHandler());
  private volatile Misbehaviour misbehaviour;

  /**
   * Starts a server on a loopback port 0.
   *
   * @param wire how it frames messages
   * @param misbehaviour what it does at first
   */
  public HostileServer(Wire wire, Misbehaviour misbehaviour) throws IOException {
    this.wire = wire;
    this.misbehaviour = misbehaviour;
    InetAddress loopback = InetAddress.getLoopbackAddress();
    this.server =
        wire == Wire.TLS && misbehaviour != Misbehaviour.TLS_STALL
            ? TestPki.shared()
                .sslContext(TestPki.shared().serverKeys())
                .getServerSocketFactory()
                .createServerSocket(0, 50, loopback)
            : new ServerSocket(0, 50, loopback);
    this.address = (InetSocketAddress) server.getLocalSocketAddress();
    Thread acceptor = new Thread(this::accept, "hostile-" + wire.label() + "-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The address it listens on. */
  public InetSocketAddress address() {
    return address;
  }

  /** What it does with the requests it reads from now on. */
  public void misbehave(Misbehaviour misbehaviour) {
    this.misbehaviour = misbehaviour;
  }

  /** Closes the server and every connection it accepted. */
  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : accepted) {
      s.close();
    }
  }

  @Override
  public String toString() {
    return "hostile " + wire.label() + " server " + address;
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException closed) {
        return;
      }
      accepted.removeIf(Socket::isClosed);
      accepted.add(s);
      Thread t = new Thread(() -> serve(s), "hostile-" + wire.label());
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      if (misbehaviour == Misbehaviour.TLS_STALL) {
        socket.getInputStream().transferTo(OutputStream.nullOutputStream());
        return;
      }
      Connection c =
          new Connection(
              new DataInputStream(new BufferedInputStream(socket.getInputStream())),
              socket.getOutputStream());
      if (wire == Wire.SASL || wire == Wire.SASL_INT) {
        if (!c.negotiate()) {
          return;
        }
      }
      while (true) {
        Request request = c.read();
        if (!answer(socket, c, request)) {
          return;
        }
      }
    } catch (IOException | TException | RuntimeException ended) {
      // the client closed or reset the connection, or sent what this server does not read
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Answers one request; false once the connection is to end. */
  private boolean answer(Socket socket, Connection c, Request request)
      throws IOException, TException, InterruptedException {
    Misbehaviour m = misbehaviour;
    switch (m) {
      case HEALTHY, SASL_STALL, TLS_STALL -> c.send(c.envelope(healthy(request), request));
      case OVERSIZE_FRAME -> c.sendOversize(healthy(request), request);
      case HUGE_STRING -> c.send(c.envelope(declaredString(request, HUGE), request));
      case LARGE_STRING -> c.send(c.envelope(declaredString(request, LARGE), request));
      case HUGE_LIST -> c.send(c.envelope(hugeList(request), request));
      case OTHER_SEQID ->
          c.send(
              c.envelope(retitled(healthy(request), request.name, request.seqid + 1, -1), request));
      case OTHER_METHOD ->
          c.send(
              c.envelope(retitled(healthy(request), "get_last_sale", request.seqid, -1), request));
      case UNKNOWN_TYPE ->
          c.send(c.envelope(retitled(healthy(request), request.name, request.seqid, 9), request));
      case TRICKLE -> {
        byte[] reply = c.envelope(healthy(request), request);
        for (byte b : reply) {
          c.out.write(b);
          c.out.flush();
          Thread.sleep(TRICKLE_MILLIS); // the misbehaviour itself
        }
      }
      case GARBAGE -> {
        byte[] garbage = new byte[64];
        Arrays.fill(garbage, (byte) 0xAB);
        c.send(c.envelope(garbage, request));
      }
      case TRUNCATED_FIN -> {
        byte[] reply = c.envelope(healthy(request), request);
        c.send(Arrays.copyOf(reply, reply.length / 2));
        socket.shutdownOutput();
        return false;
      }
      case RESET -> {
        byte[] reply = c.envelope(healthy(request), request);
        c.send(Arrays.copyOf(reply, reply.length / 2));
        socket.setSoLinger(true, 0);
        return false;
      }
      case SILENT -> {
        // read on, never answer
      }
      case TWICE -> {
        byte[] reply = c.envelope(healthy(request), request);
        c.send(reply);
        c.send(reply);
      }
      case SASL_BAD_WRAP -> {
        byte[] reply = c.envelope(healthy(request), request);
        for (int i = 4; i < reply.length; i++) {
          reply[i] ^= 0x5A; // the length stays, the wrapped bytes do not check
        }
        c.send(reply);
      }
    }
    return true;
  }

  /** One request: the message, its name and sequence id, and the THeader sequence id if any. */
  private record Request(byte[] message, String name, int seqid, int headerSeqid) {}

  private byte[] healthy(Request request) throws TException {
    TMemoryBuffer out = new TMemoryBuffer(256);
    processor.process(
        new TBinaryProtocol(new TMemoryInputTransport(request.message)), new TBinaryProtocol(out));
    return Arrays.copyOf(out.getArray(), out.length());
  }

  private static byte[] declaredString(Request request, int length) throws TException {
    TMemoryBuffer out = new TMemoryBuffer(64);
    TProtocol p = new TBinaryProtocol(out);
    p.writeMessageBegin(new TMessage(request.name, TMessageType.REPLY, request.seqid));
    p.writeStructBegin(new TStruct("result"));
    p.writeFieldBegin(new TField("success", TType.STRING, (short) 0));
    p.writeI32(length);
    p.getTransport().write("not 1.5 GiB".getBytes(StandardCharsets.US_ASCII));
    return Arrays.copyOf(out.getArray(), out.length());
  }

  private static byte[] hugeList(Request request) throws TException {
    TMemoryBuffer out = new TMemoryBuffer(64);
    TProtocol p = new TBinaryProtocol(out);
    p.writeMessageBegin(new TMessage(request.name, TMessageType.REPLY, request.seqid));
    p.writeStructBegin(new TStruct("result"));
    p.writeFieldBegin(new TField("success", TType.LIST, (short) 0));
    p.writeListBegin(new TList(TType.STRUCT, HUGE));
    p.writeFieldBegin(new TField("id", TType.I32, (short) 1));
    p.writeI32(1);
    return Arrays.copyOf(out.getArray(), out.length());
  }

  /** {@code reply} with another name, sequence id or (unless negative) message type. */
  private static byte[] retitled(byte[] reply, String name, int seqid, int type) throws TException {
    TProtocol in = new TBinaryProtocol(new TMemoryInputTransport(reply));
    TMessage header = in.readMessageBegin();
    int bodyStart = reply.length - in.getTransport().getBytesRemainingInBuffer();
    TMemoryBuffer out = new TMemoryBuffer(reply.length + 32);
    new TBinaryProtocol(out)
        .writeMessageBegin(new TMessage(name, type < 0 ? header.type : (byte) type, seqid));
    out.write(reply, bodyStart, reply.length - bodyStart);
    return Arrays.copyOf(out.getArray(), out.length());
  }

  /** DIGEST-MD5's server callbacks: the test users' passwords, each user acting as itself. */
  private static void digestCallbacks(Callback[] callbacks)
      throws IOException, UnsupportedCallbackException {
    List<Callback> rest = new ArrayList<>();
    for (Callback callback : callbacks) {
      if (callback instanceof AuthorizeCallback authorize) {
        authorize.setAuthorized(
            authorize.getAuthenticationID().equals(authorize.getAuthorizationID()));
      } else {
        rest.add(callback);
      }
    }
    SaslPeers.digestServerHandler().handle(rest.toArray(new Callback[0]));
  }

  /** One accepted connection: reads requests and writes replies as the wire kind frames them. */
  private final class Connection {
    final DataInputStream in;
    final OutputStream out;
    SaslServer sasl; // with auth-int: wraps and unwraps

    Connection(DataInputStream in, OutputStream out) {
      this.in = in;
      this.out = out;
    }

    /** Runs the server side of a SASL negotiation; false if told to stall. */
    boolean negotiate() throws IOException {
      int status = in.readUnsignedByte();
      byte[] mechanism = new byte[in.readInt()];
      in.readFully(mechanism);
      if (status != 1) {
        throw new IOException("expected SASL START, got status " + status);
      }
      if (misbehaviour == Misbehaviour.SASL_STALL) {
        in.transferTo(OutputStream.nullOutputStream());
        return false;
      }
      String name = new String(mechanism, StandardCharsets.UTF_8);
      if (name.equals("PLAIN")) {
        in.readUnsignedByte();
        in.skipNBytes(in.readInt()); // the credentials, whatever they are
        saslFrame(5, new byte[0]);
        return true;
      }
      SaslServer server =
          Sasl.createSaslServer(
              name,
              SaslPeers.PROTOCOL,
              SaslPeers.SERVER_NAME,
              Map.of(Sasl.QOP, "auth-int,auth-conf,auth"),
              HostileServer::digestCallbacks);
      if (server == null) {
        throw new SaslException("no SASL server for " + name);
      }
      while (!server.isComplete()) {
        in.readUnsignedByte();
        byte[] response = new byte[in.readInt()];
        in.readFully(response);
        byte[] challenge = server.evaluateResponse(response);
        saslFrame(server.isComplete() ? 5 : 2, challenge == null ? new byte[0] : challenge);
      }
      Object qop = server.getNegotiatedProperty(Sasl.QOP);
      if (!"auth".equals(qop)) {
        sasl = server;
      }
      return true;
    }

    private void saslFrame(int status, byte[] payload) throws IOException {
      ByteBuffer frame = ByteBuffer.allocate(5 + payload.length);
      frame.put((byte) status).putInt(payload.length).put(payload);
      send(frame.array());
    }

    Request read() throws IOException, TException {
      byte[] message;
      int headerSeqid = -1;
      switch (wire) {
        case FRAMED, SASL, SASL_INT, TLS -> {
          message = new byte[in.readInt()];
          in.readFully(message);
          if (sasl != null) {
            message = sasl.unwrap(message, 0, message.length);
          }
        }
        case HEADER -> {
          byte[] frame = new byte[4 + in.readInt()];
          ByteBuffer.wrap(frame).putInt(frame.length - 4);
          in.readFully(frame, 4, frame.length - 4);
          THeaderFrames.Reply parsed;
          try {
            parsed = THeaderFrames.read(frame);
          } catch (Exception e) {
            throw new IOException("not a THeader frame", e);
          }
          message = parsed.message;
          headerSeqid = parsed.seqId;
        }
        case HTTP -> message = readHttp();
        case UNFRAMED -> message = readUnframed();
        default -> throw new IllegalStateException(wire.toString());
      }
      TMessage header = new TBinaryProtocol(new TMemoryInputTransport(message)).readMessageBegin();
      return new Request(message, header.name, header.seqid, headerSeqid);
    }

    private byte[] readUnframed() throws TException {
      ByteArrayOutputStream seen = new ByteArrayOutputStream();
      InputStream recording =
          new InputStream() {
            @Override
            public int read() throws IOException {
              int b = in.read();
              if (b >= 0) {
                seen.write(b);
              }
              return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
              int n = in.read(b, off, len);
              if (n > 0) {
                seen.write(b, off, n);
              }
              return n;
            }
          };
      TProtocol p = new TBinaryProtocol(new TIOStreamTransport(recording));
      p.readMessageBegin();
      TProtocolUtil.skip(p, TType.STRUCT);
      p.readMessageEnd();
      return seen.toByteArray();
    }

    private byte[] readHttp() throws IOException {
      int length = -1;
      for (String line = line(); !line.isEmpty(); line = line()) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
          length = Integer.parseInt(line.substring(colon + 1).trim());
        }
      }
      if (length < 0) {
        throw new IOException("an HTTP request without Content-Length");
      }
      byte[] body = new byte[length];
      in.readFully(body);
      return body;
    }

    private String line() throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new EOFException();
        }
        if (b != '\r') {
          line.write(b);
        }
      }
      return line.toString(StandardCharsets.US_ASCII);
    }

    /** The bytes that carry {@code message} on this wire. */
    byte[] envelope(byte[] message, Request request) throws IOException {
      switch (wire) {
        case FRAMED, SASL, SASL_INT, TLS -> {
          byte[] body = sasl != null ? sasl.wrap(message, 0, message.length) : message;
          return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
        }
        case HEADER -> {
          return THeaderFrames.request().seqId(request.headerSeqid).frame(message);
        }
        case HTTP -> {
          byte[] head = httpHead(message.length);
          return ByteBuffer.allocate(head.length + message.length).put(head).put(message).array();
        }
        default -> {
          return message;
        }
      }
    }

    private byte[] httpHead(long contentLength) {
      return ("HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\nContent-Length: "
              + contentLength
              + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
    }

    /** Declares a reply of 0x7fffffff bytes and sends the first bytes of {@code message}. */
    void sendOversize(byte[] message, Request request) throws IOException {
      byte[] start = Arrays.copyOf(message, Math.min(16, message.length));
      switch (wire) {
        case HTTP -> {
          send(httpHead(Integer.MAX_VALUE));
          send(start);
        }
        case UNFRAMED -> send(start); // no frame to declare: holds after a few bytes
        default -> {
          byte[] frame = envelope(message, request);
          ByteBuffer.wrap(frame).putInt(Integer.MAX_VALUE);
          send(Arrays.copyOf(frame, Math.min(frame.length, 32)));
        }
      }
    }

    void send(byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }
  }
}
