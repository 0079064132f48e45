/**
 * Makes Netty's leak detector fail tests: {@link io.thriftnio.testkit.leak.FailingLeakDetector}
 * records what Netty reports and {@link io.thriftnio.testkit.leak.LeakCheckExtension} fails the
 * test after which a leak was reported.
 */
package io.thriftnio.testkit.leak;
