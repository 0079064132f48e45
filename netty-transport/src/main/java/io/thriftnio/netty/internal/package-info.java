/**
 * Implementation details of the Netty transport. Not an API: anything here may change in any
 * release.
 */
package io.thriftnio.netty.internal;
