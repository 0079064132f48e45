/**
 * Service discovery through ZooKeeper, with Apache Curator: {@link
 * io.thriftnio.zookeeper.ZooKeeperRegistration} publishes a started server as an ephemeral node and
 * withdraws it before the server drains on close; {@link
 * io.thriftnio.zookeeper.ZooKeeperEndpointSource} feeds a pool the servers registered under a
 * service name. Both use Curator's service-discovery record format ({@code curator-x-discovery}),
 * so other Curator users read and write the same registrations.
 */
package io.thriftnio.zookeeper;
