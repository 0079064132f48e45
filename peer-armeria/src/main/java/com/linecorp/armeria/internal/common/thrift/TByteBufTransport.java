package com.linecorp.armeria.internal.common.thrift;

import io.netty.buffer.ByteBuf;
import org.apache.thrift.TConfiguration;

/**
 * The peer's replacement for Armeria 1.33.1's class of this name ({@code armeria-thrift0.18}), the
 * transport {@code THttpService} reads a request from and writes a reply to: the same, except that
 * {@link #getConfiguration()} returns libthrift's default {@link TConfiguration} where Armeria's
 * returns {@code null}. The peer runs Armeria on libthrift 0.25 (the checked-in generated code,
 * from Thrift 0.24's compiler, does not compile against Armeria's libthrift 0.18.1), whose
 * protocols read the recursion limit of every struct from the transport's configuration. The shade
 * leaves Armeria's own class out of the peer jar.
 */
public final class TByteBufTransport extends AbstractTByteBufTransport {

  private static final TConfiguration CONFIGURATION = TConfiguration.DEFAULT;

  /** A transport over {@code buf}, as Armeria's. */
  public TByteBufTransport(ByteBuf buf) {
    super(buf);
  }

  @Override
  public TConfiguration getConfiguration() {
    return CONFIGURATION;
  }

  @Override
  public void updateKnownMessageSize(long size) {
    // As Armeria's: the protocols Armeria uses do not call it.
  }

  @Override
  public void checkReadBytesAvailable(long numBytes) {
    // As Armeria's: the ByteBuf checks its readable bytes itself.
  }

  @Override
  public void resetMessageSizeAndConsumedBytes(long newSize) {
    // Abstract in libthrift 0.25's TTransport, absent in 0.18's; as the two methods above, no
    // message-size accounting: the ByteBuf holds the whole request.
  }
}
