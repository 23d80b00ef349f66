import { fuzzShard } from "./support/Fuzz.js"

// Issue 16, half of the probes (the other half: test/fuzz2.test.ts); see test/support/Fuzz.ts.
fuzzShard(1, 2)
