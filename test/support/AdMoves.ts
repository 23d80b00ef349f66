import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { advertiser, ingestBrands } from "./BrandWorld.js"
import { account, call, keyHeader } from "./TestServer.js"

/** The external ids of a brand's ads, as `/api/v1/brands/ads` lists them. */
const brandAds = (key: string, brand: string) =>
  Effect.map(call(`/api/v1/brands/ads?id=${brand}`, keyHeader(key)), (answer) => {
    expect(answer.status).toBe(200)
    return (JSON.parse(answer.body).data as Array<{ id: string }>).map((ad) => ad.id)
  })

/** The rows of an ad's external id: its row id and its advertiser's external id. */
const rowsOf = (externalId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.orDie(sql<{ id: string; advertiser: string }>`
      select a.id::text as id, v.external_id as advertiser from ads a join advertisers v on v.id = a.advertiser_id
       where a.library = 'social' and a.external_id = ${externalId}`))

/**
 * An ad imported again under another advertiser moves to it (issue 45): one row still, under its
 * own row id, listed by the new brand and no longer by the old. On Citus its shard changes (the
 * import deletes it and writes it again, `IngestRepo.moveAds`); on one PostgreSQL the answers
 * are the same. Needs a server with the import (`Ingest`) and a clock: the ads are dated from it.
 */
export const adMovesToAnotherAdvertiser = Effect.gen(function*() {
  const { api_key } = yield* account({ plan: "pro" })
  const ad = { id: "mover-ad", firstDaysAgo: 3, lastDaysAgo: 0, status: "active", format: "image", domain: "mover.example" } as const
  yield* ingestBrands([advertiser("mover-a", "Mover A"), advertiser("mover-b", "Mover B")], [{ ...ad, brand: "mover-a" }])
  const [before] = yield* rowsOf("mover-ad")
  expect(before!.advertiser).toBe("mover-a")
  expect(yield* brandAds(api_key, "mover-a")).toEqual(["mover-ad"])
  yield* ingestBrands([], [{ ...ad, brand: "mover-b" }])
  expect(yield* rowsOf("mover-ad")).toEqual([{ id: before!.id, advertiser: "mover-b" }])
  expect(yield* brandAds(api_key, "mover-a")).toEqual([])
  expect(yield* brandAds(api_key, "mover-b")).toEqual(["mover-ad"])
  // Sent again unchanged: nothing moves, nothing is written.
  yield* ingestBrands([], [{ ...ad, brand: "mover-b" }])
  expect(yield* rowsOf("mover-ad")).toEqual([{ id: before!.id, advertiser: "mover-b" }])
})
