package io.thriftnio.it.python;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TException;
import thrift.test.Insanity;
import thrift.test.Numberz;
import thrift.test.ThriftTest;
import thrift.test.Xception;
import thrift.test.Xception2;
import thrift.test.Xtruct;
import thrift.test.Xtruct2;

/**
 * Apache Thrift's {@code ThriftTest} service with the semantics its cross-language test clients
 * check ({@code test/ThriftTest.thrift}'s comments): each {@code testX} returns its argument;
 * {@code testMapMap}, {@code testInsanity}, {@code testMulti} and the exceptions answer as
 * specified there; {@code testOneway} sleeps. Written here from the IDL's comments; thread-safe.
 */
final class ThriftTestHandler implements ThriftTest.Iface {

  @Override
  public void testVoid() {}

  @Override
  public String testString(String thing) {
    return thing;
  }

  @Override
  public boolean testBool(boolean thing) {
    return thing;
  }

  @Override
  public byte testByte(byte thing) {
    return thing;
  }

  @Override
  public int testI32(int thing) {
    return thing;
  }

  @Override
  public long testI64(long thing) {
    return thing;
  }

  @Override
  public double testDouble(double thing) {
    return thing;
  }

  @Override
  public ByteBuffer testBinary(ByteBuffer thing) {
    return thing;
  }

  @Override
  public Xtruct testStruct(Xtruct thing) {
    return thing;
  }

  @Override
  public Xtruct2 testNest(Xtruct2 thing) {
    return thing;
  }

  @Override
  public Map<Integer, Integer> testMap(Map<Integer, Integer> thing) {
    return thing;
  }

  @Override
  public Map<String, String> testStringMap(Map<String, String> thing) {
    return thing;
  }

  @Override
  public Set<Integer> testSet(Set<Integer> thing) {
    return thing;
  }

  @Override
  public List<Integer> testList(List<Integer> thing) {
    return thing;
  }

  @Override
  public Numberz testEnum(Numberz thing) {
    return thing;
  }

  @Override
  public long testTypedef(long thing) {
    return thing;
  }

  /**
   * {@code {-4 => {-4 => -4, -3 => -3, -2 => -2, -1 => -1}, 4 => {1 => 1, 2 => 2, 3 => 3, 4 =>
   * 4}}}.
   */
  @Override
  public Map<Integer, Map<Integer, Integer>> testMapMap(int hello) {
    Map<Integer, Integer> positive = new HashMap<>();
    Map<Integer, Integer> negative = new HashMap<>();
    for (int i = 1; i <= 4; i++) {
      positive.put(i, i);
      negative.put(-i, -i);
    }
    return Map.of(4, positive, -4, negative);
  }

  /** {@code {1 => {TWO => argument, THREE => argument}, 2 => {SIX => an empty Insanity}}}. */
  @Override
  public Map<Long, Map<Numberz, Insanity>> testInsanity(Insanity argument) {
    Map<Numberz, Insanity> first = new HashMap<>();
    first.put(Numberz.TWO, argument);
    first.put(Numberz.THREE, argument);
    Map<Numberz, Insanity> second = new HashMap<>();
    second.put(Numberz.SIX, new Insanity());
    return Map.of(1L, first, 2L, second);
  }

  /** {@code Xtruct("Hello2", arg0, arg1, arg2)}. */
  @Override
  public Xtruct testMulti(
      byte arg0, int arg1, long arg2, Map<Short, String> arg3, Numberz arg4, long arg5) {
    return new Xtruct("Hello2", arg0, arg1, arg2);
  }

  /**
   * {@code "Xception"}: {@code Xception(1001, arg)}; {@code "TException"}: an undeclared {@code
   * TException} (the caller gets a {@code TApplicationException}); otherwise nothing.
   */
  @Override
  public void testException(String arg) throws TException {
    if (arg.equals("Xception")) {
      throw new Xception(1001, arg);
    }
    if (arg.equals("TException")) {
      throw new TException("testException(\"TException\")");
    }
  }

  /**
   * {@code "Xception"}: {@code Xception(1001, "This is an Xception")}; {@code "Xception2"}: {@code
   * Xception2(2002, Xtruct("This is an Xception2"))}; otherwise {@code Xtruct(arg1)}.
   */
  @Override
  public Xtruct testMultiException(String arg0, String arg1) throws Xception, Xception2 {
    if (arg0.equals("Xception")) {
      throw new Xception(1001, "This is an Xception");
    }
    if (arg0.equals("Xception2")) {
      throw new Xception2(2002, new Xtruct().setString_thing("This is an Xception2"));
    }
    return new Xtruct().setString_thing(arg1);
  }

  /** Sleeps {@code secondsToSleep} seconds: the caller must not wait for it. */
  @Override
  public void testOneway(int secondsToSleep) throws TException {
    try {
      TimeUnit.SECONDS.sleep(secondsToSleep);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TException("testOneway interrupted", e);
    }
  }
}
