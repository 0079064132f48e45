/**
 * thrift-nio's client pools ({@code ThriftClientPool}, {@code ThriftAsyncClientPool}, {@code
 * ThriftChannelPool}) and endpoint sources. commons-pool2 stays out of the API.
 */
module io.thriftnio.pool {
  requires transitive io.thriftnio.core;
  requires org.apache.commons.pool2;
  requires org.slf4j;
  // @GuardedBy, for Error Prone at build time; not needed at run time.
  requires static com.google.errorprone.annotations;

  exports io.thriftnio.pool;
}
