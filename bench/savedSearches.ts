/**
 * `npm run bench:saved-searches` (issue 32; INTERPRETATIONS H1): what the import's matching pass
 * costs. On a generated world (BENCH_SCALE, default bench), saved searches are made through the
 * service (10,000 at bench scale: one keyword, two keywords, a keyword and a country, filters
 * without a keyword, an advertiser), accounts track brands, then the ads are imported through
 * `Ingest` (100,000 at bench scale) with every batch timed: its whole transaction, the saved
 * searches' matching pass and the tracked brands' diffs within it. Prints the matching's share of
 * the import's own time (the transactions without it; goal <= 0.25), both summed over the lanes;
 * the matching includes the import's end, which tells the matches (one event per saved search).
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Stream } from "effect"
import { Accounts } from "../src/access/accounts/Accounts.js"
import { ImportEvents } from "../src/access/events/ImportEvents.js"
import { BrandDiffs } from "../src/ads/brands/BrandDiffs.js"
import { SavedSearches } from "../src/ads/savedSearches/SavedSearches.js"
import { TrendCounts } from "../src/ads/trends/TrendCounts.js"
import { type ScaleName, scales, world } from "../src/demo/World.js"
import { Ingest } from "../src/ingest/Ingest.js"
import type { JsonObject } from "../src/kernel/Json.js"
import { IngestRepo } from "../src/ingest/IngestRepo.js"
import { keywordsOf, onDatabase, runBench, withScratchDatabase } from "./Scratch.js"

const scaleName = (process.env["BENCH_SCALE"] ?? "bench") as ScaleName
const sizes: Record<ScaleName, { readonly searches: number; readonly ads: number }> = {
  small: { searches: 100, ads: 300 },
  demo: { searches: 3_000, ads: 30_000 },
  bench: { searches: 10_000, ads: 100_000 },
  "10m": { searches: 10_000, ads: 100_000 }
}
const { ads: adCount, searches: searchCount } = sizes[scaleName]
/** Premium's cap: the searches are spread over this many per account. */
const perAccount = 500
const trackedPerAccount = 25

interface Ad {
  readonly library: "social" | "pinboard" | "clipapp" | "search"
  readonly headline: string | null
  readonly countries: ReadonlyArray<string>
  readonly format: string
  readonly advertiser_external_id: string
}
const savedName = { social: "social", pinboard: "pinboard", clipapp: "short-video", search: "search" } as const

/** What a user saves, drawn from the ads a search would find (deterministic: the n-th search from the n-th ad sampled). */
const searchOf = (ad: Ad, n: number): { library: (typeof savedName)[Ad["library"]]; filters: JsonObject } => {
  const keywords = keywordsOf(ad.headline ?? "")
  const one = keywords.split(" ")[0] ?? ""
  const library = savedName[ad.library]
  const country = ad.countries[0] ?? "US"
  switch (keywords === "" ? 17 : n % 20) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9:
      return { library, filters: { q: keywords } }
    case 10: case 11: case 12: case 13:
      return { library, filters: { q: one } }
    case 14: case 15: case 16:
      return { library, filters: { q: one, country: [country] } }
    case 17:
      return { library, filters: { format: [ad.format], country: [country], status: "active" } }
    default:
      return { library, filters: { advertiser_id: ad.advertiser_external_id } }
  }
}

runBench(() =>
  withScratchDatabase("bench-saved-searches", async (url) => {
    const generated = world({ scale: scales[scaleName], seed: 1, today: "2026-11-22" })
    const ads = (function*() {
      let n = 0
      for (const ad of generated.records.ads()) {
        if (n++ >= adCount) return
        yield ad
      }
    })
    console.log(`Saved searches, scale ${scaleName}: ${searchCount.toLocaleString("en")} saved searches, an import of up to ${adCount.toLocaleString("en")} ads`)
    const timings = { transactions: 0, matching: 0, told: 0, brands: 0, batches: 0, matches: 0, found: 0, events: 0 }
    const timed = <A, E, R>(effect: Effect.Effect<A, E, R>, add: (ms: number) => void) =>
      Effect.map(Effect.timed(effect), ([took, a]) => {
        add(Duration.toMillis(took))
        return a
      })
    // The services an import uses, each timed around the real one.
    const TimedRepo = Layer.effect(IngestRepo, Effect.map(IngestRepo, (repo) =>
      IngestRepo.make({ ...repo, transaction: (effect) => timed(repo.transaction(effect), (ms) => (timings.transactions += ms, timings.batches++)) }))).pipe(
      Layer.provide(IngestRepo.Default)
    )
    const TimedSearches = Layer.effect(SavedSearches, Effect.map(SavedSearches, (searches) =>
      SavedSearches.make({
        ...searches,
        matchBatch: (ids, at) =>
          timed(searches.matchBatch(ids, at), (ms) => (timings.matching += ms)).pipe(Effect.tap((found) => {
            timings.matches += found.matches
            timings.found += found.found
          }))
      }))).pipe(Layer.provideMerge(SavedSearches.Default))
    // The import's end tells its matches and brand diffs (one statement after the batches): timed from the import's own end.
    const TimedImports = Layer.effect(ImportEvents, Effect.map(ImportEvents, (imports) =>
      ImportEvents.make({
        ...imports,
        duringImport: (effect, also) => {
          let ended = 0
          return imports.duringImport(Effect.ensuring(effect, Effect.sync(() => (ended = performance.now()))), also).pipe(
            Effect.ensuring(Effect.sync(() => (timings.told += performance.now() - ended)))
          )
        }
      }))).pipe(Layer.provide(ImportEvents.Default))
    const TimedBrands = Layer.effect(BrandDiffs, Effect.map(BrandDiffs, (brands) =>
      BrandDiffs.make({ ...brands, batch: (written, at) => timed(brands.batch(written, at), (ms) => (timings.brands += ms)) }))).pipe(
      Layer.provide(BrandDiffs.Default)
    )

    await onDatabase(url, Effect.gen(function*() {
      const ingest = yield* Ingest
      const accounts = yield* Accounts
      const searches = yield* SavedSearches
      const sql = yield* SqlClient.SqlClient
      for (const entity of ["stores", "landers", "advertisers"] as const) yield* ingest.records(entity, Stream.fromIterable(generated.records[entity]()))

      // The searches, made through the service as the route makes them, from every k-th ad of the import.
      const owners = yield* Effect.forEach(Array.from({ length: Math.ceil(searchCount / perAccount) }, (_, i) => i), (i) =>
        Effect.orDie(accounts.create({ email: `saved-${i}@bench.example.com`, plan: "premium" })))
      const sample = Array.from(ads()) as ReadonlyArray<Ad>
      const step = Math.max(1, Math.floor(sample.length / searchCount))
      let t = performance.now()
      for (let n = 0; n < searchCount; n++) {
        const { filters, library } = searchOf(sample[(n * step) % sample.length]!, n)
        yield* Effect.orDie(searches.create({ accountId: owners[Math.floor(n / perAccount)]!.id, plan: "premium" }, { name: `Search ${n}`, library, filters }))
      }
      console.log(`  ${searchCount} searches saved in ${((performance.now() - t) / 1000).toFixed(1)} s`)
      // Each owner tracks brands of the import: its diffs are part of the pass too.
      yield* sql`
        insert into brand_follows (account_id, advertiser_id, followed_at)
        select o.id, adv.id, now() from unnest(${owners.map((o) => o.id)}::uuid[]) with ordinality as o(id, n)
          cross join lateral (select id from advertisers where platform = 'social' order by id offset (o.n * 7) % 50 limit ${trackedPerAccount}) adv
        on conflict do nothing`

      t = performance.now()
      const report = yield* ingest.records("ads", Stream.fromIterable(sample))
      const seconds = (performance.now() - t) / 1000
      const own = timings.transactions - timings.matching - timings.brands
      const [{ n: stored }] = yield* sql<{ n: number }>`select coalesce(sum(cardinality(ad_ids)), 0)::int as n from saved_search_query_matches`
      const [{ n: queries }] = yield* sql<{ n: number }>`select count(*)::int as n from saved_search_queries`
      const [{ n: events }] = yield* sql<{ n: number }>`select count(*)::int as n from outbox_events where type = 'saved_search.matches_new'`
      timings.events = events
      console.log(`  imported ${report.accepted} ads in ${seconds.toFixed(1)} s (${(report.accepted / seconds).toFixed(0)} ads/s), ${timings.batches} batch transactions`)
      console.log(`  matching pass: ${(timings.matching / 1000).toFixed(2)} s over the batches, ${(timings.told / 1000).toFixed(2)} s telling at the import's end, ${timings.matches} matches of the saved searches, ${timings.found} of their ${queries} distinct queries (${stored} stored), ${timings.events} events`)
      // What a user would see, digested (ids are random and ad rows numbered in the lanes' order, so by name and external id):
      // every search's matches as /matches holds them, and each search's count in the events (one an account and import).
      const [digest] = yield* sql<{ matches: string; counts: string }>`
        select (select md5(string_agg(x.name || ':' || x.ids, ';' order by x.name)) from (
                  select s.name, string_agg(a.external_id, ',' order by u.first_seen desc, a.external_id) as ids
                    from saved_searches s
                    join saved_search_query_matches m on m.query_id = s.query_id and m.pass > s.after_pass
                    cross join lateral unnest(m.ad_ids, m.first_seens) u(ad_id, first_seen) join ads a on a.id = u.ad_id
                   group by s.name) x) as matches,
               (select md5(string_agg(s.name || ':' || (told ->> 'count'), ';' order by s.name))
                  from outbox_events e
                  cross join lateral jsonb_array_elements(e.data -> 'saved_searches') told
                  join saved_searches s on s.id = (told ->> 'saved_search_id')::uuid
                 where e.type = 'saved_search.matches_new') as counts`
      console.log(`  digests: matches ${digest!.matches}, events' counts ${digest!.counts}`)
      // Storage is a figure too: the saved searches' tables (their indexes and TOAST included), per match the searches hold.
      const [{ bytes }] = yield* sql<{ bytes: string }>`
        select coalesce(sum(pg_total_relation_size(c.oid)), 0)::text as bytes from pg_class c
         where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace and c.relname like 'saved\\_search%'`
      console.log(`  saved-search tables: ${(Number(bytes) / 1e6).toFixed(1)} MB, ${(Number(bytes) / Math.max(1, timings.matches)).toFixed(1)} bytes a match of the saved searches`)
      console.log(`  brand diffs: ${(timings.brands / 1000).toFixed(2)} s over the batches`)
      const matching = timings.matching + timings.told
      console.log(`  saved-search matching: ${(matching / own).toFixed(3)} of the import's own time (goal <= 0.25); with the brand diffs ${((matching + timings.brands) / own).toFixed(3)}`)
    }).pipe(
      Effect.provide(Ingest.DefaultWithoutDependencies.pipe(Layer.provideMerge(Layer.mergeAll(TimedRepo, TrendCounts.Default, TimedSearches, TimedBrands, TimedImports)))),
      Effect.provide(Accounts.Default)
    ))
  })
)
