import { describe, layer } from "@effect/vitest"
import { Layer } from "effect"
import { Ingest } from "../src/ingest/Ingest.js"
import { adMovesToAnotherAdvertiser } from "./support/AdMoves.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { testServer } from "./support/TestServer.js"

/** An ad that moves to another advertiser, on one PostgreSQL (the same test runs on a Citus cluster: citusSameAnswers.test.ts). */
describe("an ad's advertiser changes (issue 45)", () => {
  layer(Layer.mergeAll(testServer(), Ingest.Default).pipe(Layer.provideMerge(TestDatabase)), { timeout: 60_000 })((it) => {
    it.effect("an ad imported again under another advertiser moves to that brand, one row under its own id", () => adMovesToAnotherAdvertiser)
  })
})
