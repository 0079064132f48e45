/**
 * Implementation details shared by the thrift-nio modules. Not an API: anything here may change in
 * any release.
 */
package io.thriftnio.core.internal;
