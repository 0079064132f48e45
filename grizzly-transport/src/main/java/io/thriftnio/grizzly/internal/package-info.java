/**
 * Implementation details of the Grizzly transport. Not an API: anything here may change in any
 * release.
 */
package io.thriftnio.grizzly.internal;
