package io.thriftnio.core;

import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;

/**
 * A client of {@link MiniService} written the way the Thrift compiler writes one: {@code send_x}
 * numbers its message with {@code ++seqid_}, {@code recv_x} throws a reply's {@code
 * TApplicationException} and then checks the sequence id, as {@code TServiceClient.receiveBase}
 * does.
 */
final class MiniClient extends TServiceClient {

  /** The matching generated-style {@code AsyncIface}. */
  interface AsyncIface {
    void echo(String text, AsyncMethodCallback<String> callback) throws TException;

    void oneway(String text, AsyncMethodCallback<Void> callback) throws TException;
  }

  MiniClient(TProtocol in, TProtocol out) {
    super(in, out);
  }

  public void send_echo(String text) throws TException {
    send("echo", TMessageType.CALL, text);
  }

  public String recv_echo() throws TException {
    return receive("echo");
  }

  public void send_oneway(String text) throws TException {
    send("oneway", TMessageType.ONEWAY, text);
  }

  private void send(String method, byte type, String text) throws TException {
    oprot_.writeMessageBegin(new TMessage(method, type, ++seqid_));
    oprot_.writeStructBegin(new TStruct(method + "_args"));
    oprot_.writeFieldBegin(new TField("text", TType.STRING, (short) 1));
    oprot_.writeString(text);
    oprot_.writeFieldEnd();
    oprot_.writeFieldStop();
    oprot_.writeStructEnd();
    oprot_.writeMessageEnd();
    oprot_.getTransport().flush();
  }

  private String receive(String method) throws TException {
    TMessage msg = iprot_.readMessageBegin();
    if (msg.type == TMessageType.EXCEPTION) {
      TApplicationException x = new TApplicationException();
      x.read(iprot_);
      iprot_.readMessageEnd();
      throw x;
    }
    if (msg.seqid != seqid_) {
      throw new TApplicationException(
          TApplicationException.BAD_SEQUENCE_ID,
          method
              + " failed: out of sequence response: expected "
              + seqid_
              + " but got "
              + msg.seqid);
    }
    String text = MiniService.readText(iprot_, (short) 0);
    iprot_.readMessageEnd();
    return text;
  }
}
