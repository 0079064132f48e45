/** Implementation of the pools. Not API: anything here may change in any release. */
package io.thriftnio.pool.internal;
