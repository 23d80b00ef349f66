import { fuzzShard } from "./support/Fuzz.js"

// Issue 16, a third of the probes (the others: test/fuzz2.test.ts and test/fuzz3.test.ts);
// see test/support/Fuzz.ts.
fuzzShard(1, 3)
