import { Effect, Layer, Stream } from "effect"
import { Ingest } from "../../src/catalog/Ingest.js"
import { DemoData } from "../../src/demo/DemoData.js"
import { scales, world } from "../../src/demo/World.js"
import { advertisers, landers, stores } from "../fixtures/world.js"
import { TestDatabase } from "./TestDatabase.js"
import { call, testServer, type TestServerOptions } from "./TestServer.js"

/**
 * The small demo world the ad tests search, as their servers load it: the server's clock is a
 * TestClock at 0, so "today" is 1970-01-01. Tests compute what they expect from these records.
 */
export const smallWorld = world({ seed: 7, today: "1970-01-01", scale: scales.small })

/** Ingests records of one entity; every one must be accepted. */
export const ingestAll = (entity: "stores" | "landers" | "advertisers" | "ads", records: ReadonlyArray<unknown>) =>
  Effect.flatMap(Ingest, (ingest) => ingest.records(entity, Stream.fromIterable(records))).pipe(
    Effect.tap((report) => report.rejected === 0 ? Effect.void : Effect.dieMessage(JSON.stringify(report.errors.slice(0, 3))))
  )

/** The hand-written store, lander and advertisers that `fixtures/world.ts`'s `ad(...)` links to. */
export const fixtureReferences = Effect.gen(function*() {
  yield* ingestAll("stores", stores)
  yield* ingestAll("landers", landers)
  yield* ingestAll("advertisers", advertisers)
})

/** The small demo world, then the fixture references. */
export const loadSmallWorld = Effect.gen(function*() {
  yield* Effect.flatMap(DemoData, (demo) => demo.load({ scale: "small", seed: 7 }))
  yield* fixtureReferences
})

/** `POST /api/v1/magic-ai` with a JSON body; the answer and its parsed body. */
export const magicAi = (key: string, body: unknown) =>
  Effect.map(
    call("/api/v1/magic-ai", { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) }),
    (answer) => ({ ...answer, json: JSON.parse(answer.body) })
  )

/**
 * A test server that can load the small world: no rate limit in the way of walks and loops,
 * the demo loader and the ingestion path, on a fresh database.
 */
export const smallWorldServer = (options: TestServerOptions = {}) =>
  Layer.mergeAll(testServer({ ...options, config: { rateLimitPerMinute: 100_000, ...options.config } }), DemoData.Default).pipe(
    Layer.provideMerge(Ingest.Default),
    Layer.provideMerge(TestDatabase)
  )
