/**
 * Utilities every package of the library may use (argument checks, reflection for the proxies, the
 * in-place message header reader, the one-hop exchange of pipelined channels): a leaf that depends
 * on nothing else of the library, so that the API packages use it without a package cycle. Not an
 * API: anything here may change in any release.
 */
package io.thriftnio.core.util.internal;
