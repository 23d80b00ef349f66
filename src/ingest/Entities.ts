import { createHash } from "node:crypto"
import { Clock, Effect, type Schema } from "effect"
import { type IngestRepo, type LineError, type Row, tables } from "./IngestRepo.js"
import { TrendCounts } from "../ads/trends/TrendCounts.js"
import { BrandDiffs } from "../ads/brands/BrandDiffs.js"
import { SavedSearches } from "../ads/savedSearches/SavedSearches.js"
import { ImportEvents } from "../access/events/ImportEvents.js"
import type { Ad, Advertiser, Lander, Store } from "../ads/records/Ads.js"
import { type EntityName, records } from "./Records.js"
import type { StoreMetrics, StoreProduct } from "../stores/records/Stores.js"
import { keysOf } from "../kernel/Guards.js"
import { now } from "../kernel/UtcDay.js"
import {
  type DailyPoint,
  metricsOf,
  type ShopCategory,
  type ShopCreator,
  type ShopMetrics,
  type ShopProduct,
  type ShopShop,
  type ShopVideo
} from "../shop/records/Shop.js"

/**
 * How each entity is imported: its record schema, the key a later line replaces an earlier
 * one by, and how a batch of records is written. One pipeline (Ingest.ts) serves them all.
 */

export interface Numbered<A> {
  readonly line: number
  readonly record: A
}

export interface Written {
  /** Lines the database refused (unknown references), naming the field. */
  readonly errors: ReadonlyArray<LineError>
}

/**
 * What a batch's writes derive from the ads in the batch's transaction: trend counts, the saved
 * searches' new matches and the tracked brands' diffs (issue 32).
 */
export type Derived = TrendCounts | SavedSearches | BrandDiffs | ImportEvents

export interface Entity<A> {
  // (`any`: `Schema` is invariant in its encoded side, and each record has its own wire form.)
  readonly schema: Schema.Schema<A, any>
  /** Two lines with the same key are one record: the later line wins. */
  readonly key: (record: A) => string
  /** Ads also move the counts derived from them (`TrendCounts`), in the batch's transaction. */
  readonly write: (repo: IngestRepo, batch: ReadonlyArray<Numbered<A>>) => Effect.Effect<Written, never, Derived>
  /** What wraps a whole import of this entity, its lanes included (the ads': one import for the saved searches' and brands' events). */
  readonly duringImport?: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R | Derived>
  /** What runs once an import of this entity stored records (the ads': their trend counting). */
  readonly afterImport?: Effect.Effect<void, never, Derived>
  /** Tables a large import grows: their planner statistics are refreshed afterwards. */
  readonly tables: ReadonlyArray<string>
  /** Concurrent write lanes; 1 where records of a file refer to each other. */
  readonly lanes?: number
  /**
   * Lanes on a Citus coordinator, where they differ from `lanes`: 1 for the entities written
   * into reference tables (`platform/db/migrations/citus.ts`). Citus locks a reference table's
   * copies for each transaction that writes it until it commits, so a second lane would only
   * wait; and two lanes whose statements lock several of them in turn deadlock (seen with the
   * landers' three tables). The ads write one (their landers' counts), once, late in each
   * batch: their lanes take turns there and write their shards at once before it.
   */
  readonly citusLanes?: number
}

/** Same record, same hash: an unchanged record is never rewritten. */
const hash = (record: unknown) => createHash("sha256").update(JSON.stringify(record)).digest("base64url")

const withLine = <A>(toRow: (record: A) => Record<string, unknown>) => ({ line, record }: Numbered<A>): Row => ({
  ...toRow(record),
  line,
  content_hash: hash(record)
})

const plain = <A extends object>(
  table: typeof tables[keyof typeof tables],
  toRow: (record: A) => Record<string, unknown> = (r) => ({ ...r }) as Record<string, unknown>
) =>
  (repo: IngestRepo, batch: ReadonlyArray<Numbered<A>>) =>
    Effect.map(repo.upsert(table, batch.map(withLine(toRow))), ({ errors }) => ({ errors }))

const json = (value: unknown) => value

const dayCount = (from: string, to: string) => Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000))

const adRow = (ad: Ad): Record<string, unknown> => ({
  library: ad.library,
  external_id: ad.external_id,
  advertiser_external_id: ad.advertiser_external_id,
  lander_external_id: ad.lander_external_id,
  store_external_id: ad.store_external_id,
  status: ad.status,
  first_seen: ad.first_seen,
  last_seen: ad.last_seen,
  start_date: ad.start_date,
  end_date: ad.end_date,
  days_running: ad.days_running ?? dayCount(ad.start_date ?? ad.first_seen, ad.end_date ?? ad.last_seen),
  format: ad.format,
  media: json(ad.media),
  body: ad.body,
  headline: ad.headline,
  description: ad.description,
  cta_text: ad.cta?.text ?? null,
  cta_type: ad.cta?.type ?? null,
  landing_url: ad.landing?.url ?? null,
  landing_final_url: ad.landing?.final_url ?? null,
  landing_domain: ad.landing?.domain ?? null,
  publisher_platforms: ad.publisher_platforms,
  countries: ad.countries,
  languages: ad.languages,
  impressions_lower: ad.impressions?.lower ?? null,
  impressions_upper: ad.impressions?.upper ?? null,
  spend_lower: ad.spend?.lower ?? null,
  spend_upper: ad.spend?.upper ?? null,
  spend_currency: ad.spend?.currency ?? null,
  reach_lower: ad.reach?.lower ?? null,
  reach_upper: ad.reach?.upper ?? null,
  likes: ad.engagement?.likes ?? null,
  comments: ad.engagement?.comments ?? null,
  shares: ad.engagement?.shares ?? null,
  views: ad.engagement?.views ?? null,
  niche: ad.niche,
  hook: ad.ai_tags?.hook ?? null,
  angle: ad.ai_tags?.angle ?? null,
  persona: ad.ai_tags?.persona ?? null,
  variant_group: ad.variant_group,
  search: json(ad.search),
  fetched_at: ad.fetched_at,
  source: ad.source,
  method: ad.method
})

/**
 * Ads, and what is derived from them in the same transaction (issue 20): the ad counts of the
 * landers they link to and the daily trend counts of their copy. Only ads whose record changed
 * move them; each takes back what it counted before.
 */
const writeAds = (repo: IngestRepo, batch: ReadonlyArray<Numbered<Ad>>) =>
  Effect.gen(function*() {
    const sent = batch.map(withLine(adRow))
    const before = yield* repo.adsBefore(sent)
    const byId = new Map(Array.from(before.values(), (old) => [old.id, old]))
    const trends = yield* TrendCounts
    // Whether a moving ad was counted is asked before it is deleted: on one PostgreSQL its
    // pending row goes with it. The other ads' after the upsert, for those it changed.
    const moving = Array.from(byId.values()).filter((old) => old.moves)
    const countedMoving = yield* trends.countedOf(moving.map((old) => old.id))
    yield* repo.moveAds(moving)
    // Only the ads whose record changed are written again, and returned; a stored ad keeps its row id.
    const { changed, errors } = yield* repo.upsertAds(
      sent.map((row) => ({ ...row, stored_id: before.get(`${String(row["library"])}/${String(row["external_id"])}`)?.id ?? null }))
    )
    const stored = changed.flatMap((ad) => {
      const old = byId.get(ad.id)
      return old === undefined ? [] : [old]
    })
    yield* repo.moveLanderCounts(
      stored.flatMap((old) => (old.lander_id === null ? [] : [old.lander_id])),
      changed.flatMap((ad) => (ad.lander_id === null ? [] : [ad.lander_id]))
    )
    // A changed ad is stored as not counted (TrendCounts.run counts it after the import); what
    // its old copy counted is taken back now, in this transaction, so no count outlives its copy.
    const countedRest = yield* trends.countedOf(stored.filter((old) => !old.moves).map((old) => old.id))
    const counted = new Set([...countedMoving, ...countedRest])
    yield* trends.record(stored.filter((old) => counted.has(old.id)).map((old) => ({ before: old, after: null })))
    yield* trends.pending(changed)
    // The saved searches' new matches and the tracked brands' diffs (H1, H3): one set-based
    // pass each over the batch in this transaction, kept pending and told at the import's end.
    // An ad is new when the batch inserted it: sending a file again finds nothing new.
    const at = new Date(yield* Clock.currentTimeMillis)
    const inserted = changed.filter((ad) => !byId.has(ad.id)).map((ad) => ad.id)
    const inactivated = changed.filter((ad) => ad.status === "inactive" && byId.get(ad.id)?.status === "active").map((ad) => ad.id)
    yield* Effect.flatMap(SavedSearches, (searches) => searches.matchBatch(inserted, at))
    yield* Effect.flatMap(BrandDiffs, (brands) => brands.batch({ inserted, written: changed.map((ad) => ad.id), inactivated }, at))
    return { errors }
  })

const regional = (record: { readonly region: string; readonly external_id: string }) => `${record.region}/${record.external_id}`

export const entities = {
  advertisers: {
    tables: ["advertisers"],
    citusLanes: 1,
    schema: records.advertisers.schema,
    key: (a) => `${a.platform}/${a.external_id}`,
    write: (repo, batch) =>
      Effect.gen(function*() {
        const rows = batch.map(withLine((a: Advertiser) => ({ ...a })))
        const renamed = yield* repo.renamedAdvertisers(rows)
        const { errors } = yield* repo.upsert(tables.advertisers, rows)
        yield* repo.reindexAdsOf(renamed)
        return { errors }
      })
  } satisfies Entity<Advertiser>,
  stores: {
    tables: ["stores"],
    citusLanes: 1,
    schema: records.stores.schema,
    key: (s) => s.external_id,
    write: plain<Store>(tables.stores)
  } satisfies Entity<Store>,
  landers: {
    tables: ["landers"],
    citusLanes: 1,
    schema: records.landers.schema,
    key: (l) => l.external_id,
    write: (repo, batch) =>
      Effect.gen(function*() {
        const rows = batch.map(withLine(({ text, ...l }: Lander) => ({ ...l, page_text: text })))
        const { written, errors } = yield* repo.upsert(tables.landers, rows)
        yield* repo.landerRows(written.map((row) => String(row["external_id"])))
        return { errors }
      })
  } satisfies Entity<Lander>,
  ads: {
    tables: ["ads", "landers"],
    schema: records.ads.schema,
    key: (a) => `${a.library}/${a.external_id}`,
    write: writeAds,
    duringImport: (effect) =>
      Effect.flatMap(Effect.zip(ImportEvents, SavedSearches), ([imports, searches]) => imports.duringImport(effect, [searches.teller])),
    afterImport: Effect.zipRight(
      Effect.flatMap(TrendCounts, (counts) => counts.kick),
      Effect.flatMap(SavedSearches, (searches) => Effect.flatMap(now, searches.checked))
    )
  } satisfies Entity<Ad>,
  "shop-categories": {
    tables: ["shop_categories"],
    lanes: 1,
    schema: records["shop-categories"].schema,
    key: regional,
    // Level by level, so a parent sent in the same batch exists when its children are written.
    write: (repo, batch) =>
      Effect.gen(function*() {
        const errors: Array<LineError> = []
        for (const level of [1, 2, 3]) {
          const rows = batch.filter(({ record }) => record.level === level).map(withLine((c: ShopCategory) => ({ ...c })))
          if (rows.length > 0) errors.push(...(yield* repo.upsert(tables.shopCategories, rows)).errors)
        }
        return { errors }
      })
  } satisfies Entity<ShopCategory>,
  "shop-shops": {
    tables: ["shop_shops"],
    schema: records["shop-shops"].schema,
    key: regional,
    write: plain<ShopShop>(tables.shopShops)
  } satisfies Entity<ShopShop>,
  "shop-creators": {
    tables: ["shop_creators"],
    schema: records["shop-creators"].schema,
    key: regional,
    write: (repo, batch) =>
      Effect.gen(function*() {
        const rows = batch.map(withLine((c: ShopCreator) => ({ ...c })))
        const unknown = yield* repo.missingInList(rows, "category_external_ids", "shop_categories", "a category of this list does not exist in this region")
        const bad = new Set(unknown.map((e) => e.line))
        const { errors } = yield* repo.upsert(tables.shopCreators, rows.filter((r) => !bad.has(r.line)))
        return { errors: [...unknown, ...errors] }
      })
  } satisfies Entity<ShopCreator>,
  "shop-products": {
    tables: ["shop_products"],
    schema: records["shop-products"].schema,
    key: regional,
    write: plain<ShopProduct>(tables.shopProducts)
  } satisfies Entity<ShopProduct>,
  "shop-videos": {
    tables: ["shop_videos", "shop_video_products"],
    schema: records["shop-videos"].schema,
    key: regional,
    write: (repo, batch) =>
      Effect.gen(function*() {
        const rows = batch.map(withLine((v: ShopVideo) => ({ ...v })))
        const unknown = yield* repo.missingInList(rows, "product_external_ids", "shop_products", "a product of this list does not exist in this region")
        const bad = new Set(unknown.map((e) => e.line))
        const { errors, written } = yield* repo.upsert(tables.shopVideos, rows.filter((r) => !bad.has(r.line)))
        if (written.length > 0) yield* repo.replaceVideoProducts(written)
        return { errors: [...unknown, ...errors] }
      })
  } satisfies Entity<ShopVideo>,
  "shop-metrics": {
    tables: ["shop_category_daily", "shop_shop_daily", "shop_creator_daily", "shop_product_daily", "shop_video_daily"],
    schema: records["shop-metrics"].schema,
    key: (m) => `${m.subject}/${m.region}/${m.external_id}`,
    write: (repo, batch) =>
      Effect.gen(function*() {
        const errors: Array<LineError> = []
        for (const subject of keysOf(metricsOf)) {
          const items = batch.filter(({ record }) => record.subject === subject)
          if (items.length === 0) continue
          const missing = yield* repo.missingSubjects(subject, items.map(({ line, record }) => ({ line, ...record })))
          errors.push(...missing)
          const bad = new Set(missing.map((e) => e.line))
          const points = items
            .filter(({ line }) => !bad.has(line))
            .flatMap(({ record }) =>
              record.series.map((point: DailyPoint) => ({ region: record.region, external_id: record.external_id, ...point }))
            )
          if (points.length > 0) yield* repo.upsertDaily(subject, points)
        }
        return { errors }
      })
  } satisfies Entity<ShopMetrics>,
  // Hosted stores (issue 20): products, then their daily observations, from which the write
  // estimates sales. One lane: a store's products may sit in either lane, and its daily sums
  // are computed again from all of them.
  "store-products": {
    tables: ["store_products"],
    citusLanes: 1,
    schema: records["store-products"].schema,
    key: (p) => `${p.store_external_id}/${p.external_id}`,
    write: plain<StoreProduct>(tables.storeProducts)
  } satisfies Entity<StoreProduct>,
  "store-metrics": {
    tables: ["store_product_daily", "store_daily"],
    lanes: 1,
    schema: records["store-metrics"].schema,
    key: (m) => `${m.store_external_id}/${m.external_id}`,
    write: (repo, batch) =>
      Effect.gen(function*() {
        const rows = batch.map(({ line, record }) => ({ line, store_external_id: record.store_external_id, external_id: record.external_id }))
        const missing = yield* repo.missingStoreProducts(rows)
        const bad = new Set(missing.map((e) => e.line))
        const points = batch
          .filter(({ line }) => !bad.has(line))
          .flatMap(({ record }) =>
            record.series.map((point) => ({ store_external_id: record.store_external_id, external_id: record.external_id, ...point })))
        if (points.length > 0) yield* repo.upsertStoreObservations(points)
        return { errors: missing }
      })
  } satisfies Entity<StoreMetrics>
  // (`any`: each entry is an `Entity` of its own record type; the table only checks that it is one.)
} satisfies Record<EntityName, Entity<any>>
