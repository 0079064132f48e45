package io.thriftnio.spring.boot;

import io.thriftnio.core.tls.ClientAuth;

/**
 * {@code thrift.server.ssl.*} and {@code thrift.clients.<name>.ssl.*}: TLS from a Spring SSL bundle
 * ({@code spring.ssl.bundle.*}).
 *
 * @param bundle the SSL bundle's name. On the server: its key store is the server's certificate,
 *     and the server serves TLS when set. On a client: its trust store checks the servers, its key
 *     store (if any) is the client's certificate. Default: none, plain TCP
 * @param clientAuth the server's alone: whether clients must present a certificate trusted by the
 *     bundle's trust store: {@code none}, {@code optional}, {@code require}; set on a client, the
 *     start fails naming it. Default: {@code none}
 */
public record ThriftSslProperties(String bundle, ClientAuth clientAuth) {}
