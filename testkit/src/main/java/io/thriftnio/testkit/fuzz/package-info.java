/**
 * One seeded fuzz engine for every transport: {@link io.thriftnio.testkit.fuzz.Fuzz} (seed, budget,
 * replay, failure messages with the input in hex), the input generators {@link
 * io.thriftnio.testkit.fuzz.FrameInputs} (byte streams and the model of what a frame decoder must
 * make of them) and {@link io.thriftnio.testkit.fuzz.CallInputs} (calls of {@code bench.thrift},
 * whole or mutated, by {@link io.thriftnio.testkit.fuzz.Mutations}), the checks {@link
 * io.thriftnio.testkit.fuzz.Replies}, {@link io.thriftnio.testkit.fuzz.FuzzHandler}, {@link
 * io.thriftnio.testkit.fuzz.LogWatch} and {@link io.thriftnio.testkit.fuzz.OpenFiles}, and the
 * end-to-end {@link io.thriftnio.testkit.fuzz.ServerFuzzSuite}.
 *
 * <p>A long run: {@code ./mvnw -B -pl netty-transport -am verify -Dtest='*Fuzz*'
 * -Dsurefire.failIfNoSpecifiedTests=false -Dthriftnio.fuzz.seconds=300 -Dthriftnio.fuzz.seed=42}
 * (or {@code -pl grizzly-transport}).
 */
package io.thriftnio.testkit.fuzz;
