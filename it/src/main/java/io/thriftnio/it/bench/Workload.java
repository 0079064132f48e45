package io.thriftnio.it.bench;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TMemoryBuffer;

/**
 * What one call of a cell does, and how its result is checked: {@code echo} of a checkable payload,
 * {@code sleep(ms)}, {@code db_work(n)}, or {@code get_last_sale}.
 *
 * <p>Against a raw echo row the same request is sent as a prepared frame ({@link #requestFrame})
 * and the echo is compared with it byte for byte, without Thrift decoding.
 */
abstract class Workload {

  /** The seed of every echo payload, so that any receiver can check the bytes. */
  static final long SEED = 0x7468726966746eL;

  /** Echo of a payload of {@code size} bytes. */
  static Workload echo(int size) {
    return new Echo(size);
  }

  /** {@code sleep(millis)}. */
  static Workload sleep(int millis) {
    return new Sleep(millis);
  }

  /** The symbol of {@link #lastSale()}. */
  static final String LAST_SALE_SYMBOL = "AAPL";

  /**
   * {@code get_last_sale("AAPL")}, checked against the reference handler's {@code TradeReport}: the
   * call of The Programmer's Guide to Apache Thrift's progression ({@code matrix --preset guide}).
   */
  static Workload lastSale() {
    return new LastSale();
  }

  /** {@code db_work(rows)}, checked row by row against {@link BenchHandler#row(int)}. */
  static Workload dbWork(int rows) {
    return new DbWork(rows);
  }

  /** The label of the CSV's {@code size} column: {@code 300}, {@code 3k}, {@code sleep(100)}. */
  abstract String label();

  /** Request payload bytes, for sorting and charts; 0 when the call carries no payload. */
  abstract int size();

  /** Writes the request through a generated client ({@code send_x}); it is flushed. */
  abstract void send(BenchService.Client client) throws TException;

  /** Reads the reply through a generated client ({@code recv_x}). */
  abstract Object receive(BenchService.Client client) throws TException;

  /**
   * The payload of an echo, read-only, for clients of other stacks that send the same bytes (the
   * drift and grpc kinds); {@code null} for the other workloads.
   */
  ByteBuffer echoPayload() {
    return null;
  }

  /** Whether a reply is the one the reference handler gives. */
  abstract boolean check(Object reply);

  /** One blocking call: send, receive, check. */
  final boolean call(BenchService.Client client) throws TException {
    send(client);
    return check(receive(client));
  }

  /**
   * The request message as {@code send_x} encodes it (sequence id 0), without the length prefix.
   *
   * @param protocol the protocol of the cell
   */
  final byte[] requestFrame(TProtocolFactory protocol) {
    try {
      TMemoryBuffer buffer = new TMemoryBuffer(Math.max(64, size() + 64));
      send(new BenchService.Client(protocol.getProtocol(buffer)));
      return Arrays.copyOf(buffer.getArray(), buffer.length());
    } catch (TException e) {
      throw new IllegalStateException("cannot encode " + label(), e);
    }
  }

  @Override
  public String toString() {
    return label();
  }

  private static final class Echo extends Workload {
    private final int size;
    private final ByteBuffer payload;

    Echo(int size) {
      this.size = size;
      this.payload = Payloads.of(size, SEED);
    }

    @Override
    String label() {
      return Payloads.formatSize(size);
    }

    @Override
    int size() {
      return size;
    }

    @Override
    ByteBuffer echoPayload() {
      return payload.asReadOnlyBuffer();
    }

    @Override
    void send(BenchService.Client client) throws TException {
      // Many lanes share one payload: each call gets its own view, so no position is shared.
      client.send_echo(payload.duplicate());
    }

    @Override
    Object receive(BenchService.Client client) throws TException {
      return client.recv_echo();
    }

    @Override
    boolean check(Object reply) {
      return reply instanceof ByteBuffer && Payloads.check((ByteBuffer) reply, size, SEED);
    }
  }

  private static final class Sleep extends Workload {
    private final int millis;

    Sleep(int millis) {
      this.millis = millis;
    }

    @Override
    String label() {
      return "sleep(" + millis + ")";
    }

    @Override
    int size() {
      return 0;
    }

    @Override
    void send(BenchService.Client client) throws TException {
      client.send_sleep(millis);
    }

    @Override
    Object receive(BenchService.Client client) throws TException {
      client.recv_sleep();
      return Boolean.TRUE;
    }

    @Override
    boolean check(Object reply) {
      return Boolean.TRUE.equals(reply);
    }
  }

  private static final class LastSale extends Workload {
    private final TradeReport expected = new TradeReport(LAST_SALE_SYMBOL, 25.50, 100, 1);

    @Override
    String label() {
      return "get_last_sale";
    }

    @Override
    int size() {
      return 0;
    }

    @Override
    void send(BenchService.Client client) throws TException {
      client.send_get_last_sale(LAST_SALE_SYMBOL);
    }

    @Override
    Object receive(BenchService.Client client) throws TException {
      return client.recv_get_last_sale();
    }

    @Override
    boolean check(Object reply) {
      return expected.equals(reply);
    }
  }

  private static final class DbWork extends Workload {
    private final int rows;
    private final List<TestInfo> expected;

    DbWork(int rows) {
      this.rows = rows;
      List<TestInfo> list = new ArrayList<>(rows);
      for (int i = 0; i < rows; i++) {
        list.add(BenchHandler.row(i));
      }
      this.expected = List.copyOf(list);
    }

    @Override
    String label() {
      return "db_work(" + rows + ")";
    }

    @Override
    int size() {
      return 0;
    }

    @Override
    void send(BenchService.Client client) throws TException {
      client.send_db_work(rows);
    }

    @Override
    Object receive(BenchService.Client client) throws TException {
      return client.recv_db_work();
    }

    @Override
    boolean check(Object reply) {
      return expected.equals(reply);
    }
  }
}
