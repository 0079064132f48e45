package io.thriftnio.core.util.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.junit.jupiter.api.Test;

class ReplyChecksTest {

  private static final SocketAddress P = InetSocketAddress.createUnresolved("p", 9);

  @Test
  void aMultiplexedCallIsAnsweredUnderItsBareName() {
    assertThat(ReplyChecks.mismatch(new TMessage("echo", TMessageType.REPLY, 1), "bench:echo", P))
        .isNull();
    assertThat(ReplyChecks.mismatch(new TMessage("echo", TMessageType.REPLY, 1), "echo", P))
        .isNull();
  }

  @Test
  void anotherNameOrANonReplyTypeIsNoAnswer() {
    assertThat(ReplyChecks.mismatch(new TMessage("xecho", TMessageType.REPLY, 1), "echo", P))
        .extracting(TApplicationException::getType)
        .isEqualTo(TApplicationException.WRONG_METHOD_NAME);
    assertThat(ReplyChecks.mismatch(new TMessage("cho", TMessageType.REPLY, 1), "bench:echo", P))
        .extracting(TApplicationException::getType)
        .isEqualTo(TApplicationException.WRONG_METHOD_NAME);
    assertThat(ReplyChecks.mismatch(new TMessage("echo", TMessageType.CALL, 1), "echo", P))
        .extracting(TApplicationException::getType)
        .isEqualTo(TApplicationException.INVALID_MESSAGE_TYPE);
    assertThat(ReplyChecks.mismatch(new TMessage("other", TMessageType.EXCEPTION, 1), "echo", P))
        .as("an exception is left to the generated client, which reads it")
        .isNull();
  }
}
