/**
 * The non-Java interop peer: the official Python Thrift library ({@code src/test/python}, code
 * generated from bench.thrift into {@code testkit/src/main/gen-py}) as a client of any server row
 * and as a server for any client row. {@link io.thriftnio.it.python.PythonPeer} is the entry point.
 */
package io.thriftnio.it.python;
