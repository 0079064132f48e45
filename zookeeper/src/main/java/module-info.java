/**
 * thrift-nio's ZooKeeper endpoint source and server registration, through Curator's service
 * discovery.
 */
module io.thriftnio.zookeeper {
  requires transitive io.thriftnio.core;
  requires transitive io.thriftnio.pool;
  // Curator's jars name no module: these are the names the module system derives from the jars.
  requires transitive curator.framework;
  requires curator.x.discovery;
  requires org.slf4j;
  // @GuardedBy, for Error Prone at build time; not needed at run time.
  requires static com.google.errorprone.annotations;

  exports io.thriftnio.zookeeper;
}
