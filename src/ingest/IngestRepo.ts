import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Option, Schema } from "effect"
import type { AdCopy } from "../ads/trends/Phrases.js"
import { oneLine } from "../kernel/Json.js"
import { sqlStateOf, unboundedStatements } from "../platform/db/Database.js"
import { databaseMode } from "../platform/db/mode/DatabaseMode.js"
import { type MetricSubject, metricsOf } from "../shop/records/Shop.js"

/**
 * Bulk upserts of the research records: one statement per table and batch. A batch travels as
 * one JSON parameter (an upsert's rows as arrays of values, `positionalRecordset`; the smaller
 * statements' as objects read with `json_to_recordset`), so a thousand rows cost one round
 * trip; the SQL text itself is built once per table from constant column lists below (no value
 * is ever spliced into it).
 */

/** A row of a batch: recordset fields by name, plus the input line it came from. */
export type Row = Readonly<Record<string, unknown>> & { readonly line: number }

interface Column {
  readonly name: string
  readonly type: string
  /** SQL value written when the record leaves the field out. */
  readonly absent?: string
}

/** A reference by external id to a row of another table, resolved to its `id`. */
interface Ref {
  /** Foreign-key column written in this table. */
  readonly column: string
  /** Recordset field with the referenced external id. */
  readonly field: string
  readonly table: string
  /** Also match this column of the referenced table to this recordset field (region, platform). */
  readonly scope?: readonly [column: string, field: string]
  /** The error for a line whose reference does not exist. */
  readonly missing: string
}

/** How one record table is written. */
export interface TableSpec {
  readonly table: string
  readonly key: ReadonlyArray<string>
  /**
   * The unique constraint the upsert names instead of `key`'s columns, where the two modes'
   * keys differ: on Citus it leads with the distribution column (`ads_external_key`, migration 0107).
   */
  readonly constraint?: string
  /** Copied from the recordset as they are. */
  readonly columns: ReadonlyArray<Column>
  readonly refs: ReadonlyArray<Ref>
  /** Columns computed in SQL from `r.*` and the `ref<i>` aliases of `refs`. */
  readonly computed: ReadonlyArray<readonly [column: string, expression: string]>
  /** Recordset fields only read by refs or computed columns. */
  readonly inputs: ReadonlyArray<Column>
  /** Columns written when a row is inserted and never changed by an update. */
  readonly keeps?: ReadonlyArray<string>
  /** What the statement returns of each row it inserted or changed (unchanged rows are not written). */
  readonly returning?: string
}

const col = (name: string, type: string, absent?: string): Column => (absent === undefined ? { name, type } : { name, type, absent })

/** A reference to a short-video shop record of the same region. */
const regional = (column: string, field: string, table: string, noun: string): Ref => ({
  column,
  field,
  table,
  scope: ["region", "region"],
  missing: `no ${noun} of this region has this external_id`
})

const provenance = [col("fetched_at", "timestamptz"), col("source", "text"), col("method", "text"), col("content_hash", "text")]

export const tables = {
  advertisers: {
    table: "advertisers",
    key: ["platform", "external_id"],
    columns: [
      col("platform", "text"), col("external_id", "text"), col("name", "text"), col("domain", "text"),
      col("verified", "boolean", "false"), col("followers", "bigint"), col("country", "text"), col("niche", "text"),
      ...provenance
    ],
    refs: [],
    computed: [],
    inputs: []
  },
  stores: {
    table: "stores",
    key: ["external_id"],
    columns: [
      col("external_id", "text"), col("domain", "text"), col("name", "text"), col("platform", "text"),
      col("country", "text"), col("currency", "text"), col("product_count", "integer"), col("created_on", "date"),
      col("monthly_visits", "jsonb", "'[]'"), col("active_ads", "integer", "0"), col("best_sellers", "jsonb", "'[]'"),
      col("theme", "text"), col("apps", "text[]", "'{}'"), col("language", "text"), col("social_links", "jsonb", "'[]'"),
      ...provenance
    ],
    refs: [],
    // The latest month's visits: what the store explorer filters and sorts by (issue 20).
    computed: [[
      "visits_estimate",
      `(select (m->>'visits')::bigint from jsonb_array_elements(coalesce(r.monthly_visits, '[]'::jsonb)) m
         order by m->>'month' desc limit 1)`
    ]],
    inputs: []
  },
  storeProducts: {
    table: "store_products",
    key: ["store_id", "external_id"],
    columns: [
      col("external_id", "text"), col("title", "text"), col("price", "numeric"), col("compare_at_price", "numeric"),
      col("currency", "text"), col("images", "jsonb", "'[]'"), col("url", "text"), col("product_type", "text"),
      col("published_on", "date"), ...provenance
    ],
    refs: [{ column: "store_id", field: "store_external_id", table: "stores", missing: "no store has this external_id" }],
    computed: [],
    inputs: [col("store_external_id", "text")]
  },
  landers: {
    table: "landers",
    key: ["external_id"],
    columns: [
      col("external_id", "text"), col("url", "text"), col("final_url", "text"), col("domain", "text"),
      col("title", "text"), col("page_type", "text"), col("screenshot_url", "text"), col("platform", "text"),
      col("offer_price", "numeric"), col("currency", "text"), col("linked_ads", "integer", "0"),
      col("first_seen", "timestamptz"), col("last_seen", "timestamptz"),
      // The lander library's filters (issue 20, migration 0050).
      col("headline", "text"), col("page_text", "text"), col("niche", "text"),
      col("countries", "text[]", "'{}'"), col("languages", "text[]", "'{}'"),
      ...provenance
    ],
    refs: [{ column: "store_id", field: "store_external_id", table: "stores", missing: "no store has this external_id" }],
    computed: [["search_vector", landerSearchVector("r.title", "r.headline", "r.page_text")]],
    inputs: [col("store_external_id", "text")]
  },
  ads: {
    table: "ads",
    key: ["library", "external_id"],
    constraint: "ads_external_key",
    // An ad's row id: the one it had when it moves to another advertiser (`moveAds`), else a new one.
    keeps: ["id"],
    columns: [
      col("library", "text"), col("external_id", "text"), col("status", "text"),
      col("first_seen", "timestamptz"), col("last_seen", "timestamptz"), col("start_date", "date"),
      col("end_date", "date"), col("days_running", "integer"), col("format", "text"), col("media", "jsonb", "'[]'"),
      col("body", "text"), col("headline", "text"), col("description", "text"), col("cta_text", "text"),
      col("cta_type", "text"), col("landing_url", "text"), col("landing_final_url", "text"),
      col("landing_domain", "text"), col("publisher_platforms", "text[]", "'{}'"), col("countries", "text[]", "'{}'"),
      col("languages", "text[]", "'{}'"), col("impressions_lower", "bigint"), col("impressions_upper", "bigint"),
      col("spend_lower", "numeric"), col("spend_upper", "numeric"), col("spend_currency", "text"),
      col("reach_lower", "bigint"), col("reach_upper", "bigint"), col("likes", "bigint"),
      col("comments", "bigint"), col("shares", "bigint"), col("views", "bigint"), col("niche", "text"),
      col("hook", "text"), col("angle", "text"), col("persona", "text"), col("variant_group", "text"),
      col("search", "jsonb"),
      ...provenance
    ],
    refs: [
      {
        column: "advertiser_id",
        field: "advertiser_external_id",
        table: "advertisers",
        scope: ["platform", "library"],
        missing: "no advertiser of this library has this external_id"
      },
      { column: "lander_id", field: "lander_external_id", table: "landers", missing: "no lander has this external_id" },
      { column: "store_id", field: "store_external_id", table: "stores", missing: "no store has this external_id" }
    ],
    computed: [
      ["search_vector", adSearchVector("r.headline", "ref0.name", "r.description", "r.body")],
      ["id", "coalesce(r.stored_id, nextval('ads_id_seq'))"]
    ],
    inputs: [
      col("advertiser_external_id", "text"), col("lander_external_id", "text"), col("store_external_id", "text"),
      col("stored_id", "bigint")
    ],
    // What the counts derived from ads need of the ads a batch wrote (`WrittenAd`).
    returning: `id::text as id, lander_id::text as lander_id, to_char(first_seen at time zone 'UTC', 'YYYY-MM-DD') as day, status`
  },
  shopCategories: {
    table: "shop_categories",
    key: ["region", "external_id"],
    columns: [col("region", "text"), col("external_id", "text"), col("name", "text"), col("level", "smallint"), ...provenance],
    refs: [regional("parent_id", "parent_external_id", "shop_categories", "category")],
    computed: [],
    inputs: [col("parent_external_id", "text")]
  },
  shopShops: {
    table: "shop_shops",
    key: ["region", "external_id"],
    columns: [
      col("region", "text"), col("external_id", "text"), col("name", "text"), col("shop_type", "text"),
      col("rating", "numeric"), col("followers", "bigint"), ...provenance
    ],
    refs: [regional("main_category_id", "main_category_external_id", "shop_categories", "category")],
    computed: [],
    inputs: [col("main_category_external_id", "text")]
  },
  shopCreators: {
    table: "shop_creators",
    key: ["region", "external_id"],
    columns: [
      col("region", "text"), col("external_id", "text"), col("handle", "text"), col("nickname", "text"),
      col("followers", "bigint"), col("engagement_rate", "numeric"), ...provenance
    ],
    refs: [],
    computed: [[
      "category_ids",
      `coalesce((select array_agg(c.id order by c.id) from shop_categories c
                  where c.region = r.region and c.external_id = any(r.category_external_ids)), '{}')`
    ]],
    inputs: [col("category_external_ids", "text[]")]
  },
  shopProducts: {
    table: "shop_products",
    key: ["region", "external_id"],
    columns: [
      col("region", "text"), col("external_id", "text"), col("title", "text"), col("price_min", "numeric"),
      col("price_max", "numeric"), col("currency", "text"), col("commission_rate", "numeric"),
      col("rating", "numeric"), col("reviews", "integer"), col("launched_on", "date"), col("images", "jsonb", "'[]'"),
      ...provenance
    ],
    refs: [
      regional("shop_id", "shop_external_id", "shop_shops", "shop"),
      regional("category_id", "category_external_id", "shop_categories", "category")
    ],
    computed: [],
    inputs: [col("shop_external_id", "text"), col("category_external_id", "text")]
  },
  shopVideos: {
    table: "shop_videos",
    key: ["region", "external_id"],
    columns: [
      col("region", "text"), col("external_id", "text"), col("description", "text"),
      col("duration_seconds", "integer"), col("published_at", "timestamptz"), col("is_ad", "boolean", "false"),
      col("playback_url", "text"), col("cdn_url", "text"), ...provenance
    ],
    refs: [regional("creator_id", "creator_external_id", "shop_creators", "creator")],
    computed: [],
    inputs: [col("creator_external_id", "text")]
  }
} satisfies Record<string, TableSpec>

/** The tables the short-video shop's suggestions are computed from. */
const suggestionSources = new Set(["shop_categories", "shop_shops", "shop_creators", "shop_products"])

/** The ad's full-text document: headline and advertiser name weigh most, then description, then body. */
export function adSearchVector(headline: string, advertiser: string, description: string, body: string) {
  return `setweight(to_tsvector('english', coalesce(${headline}, '') || ' ' || coalesce(${advertiser}, '')), 'A')
       || setweight(to_tsvector('english', coalesce(${description}, '')), 'B')
       || setweight(to_tsvector('english', coalesce(${body}, '')), 'C')`
}

/** A lander's full-text document (issue 20): title weighs most, then headline, then the page's text. */
function landerSearchVector(title: string, headline: string, text: string) {
  return `setweight(to_tsvector('english', coalesce(${title}, '')), 'A')
       || setweight(to_tsvector('english', coalesce(${headline}, '')), 'B')
       || setweight(to_tsvector('english', coalesce(${text}, '')), 'C')`
}

/** The fields an upsert reads of a row, in the order `positionalRecordset` and `positionalRow` agree on. */
const fieldsOf = (spec: TableSpec) => [col("line", "integer"), ...spec.columns, ...spec.inputs]

/**
 * A batch sent as one JSON array of rows, each an array of its fields' values, read as the
 * relation `r` with one typed column per field: the values `json_to_recordset` read from
 * objects, for about half the database's time (issue 29: it built a hash of every object's keys
 * and cost about 25 µs an ad). Scalars go through their type's input function as there; a JSON
 * null (or a missing value) is SQL null, arrays become arrays of text in their order (a
 * function scan keeps it) cast to the column's type.
 */
const positionalRecordset = (columns: ReadonlyArray<Column>) => {
  const read = columns.map((c, i) =>
    c.type === "jsonb"
      ? `nullif(e->${i}, 'null') as ${c.name}`
      : c.type.endsWith("[]")
      ? `case when jsonb_typeof(e->${i}) = 'array' then array(select jsonb_array_elements_text(e->${i})) end::${c.type} as ${c.name}`
      : `(e->>${i})::${c.type} as ${c.name}`
  )
  return `(select ${read.join(", ")} from jsonb_array_elements($1::jsonb) e) as r`
}

/** A row as `positionalRecordset` reads it (undefined becomes JSON null). */
const positionalRow = (names: ReadonlyArray<string>) => (row: Row) => names.map((name) => row[name])

/** The advisory lock space of the import's per-ad locks (`adsBefore`): a seed of `hashtextextended`. */
export const adLockSpace = 45

/** What `upsertStatement` answers: the rows its `returning` gave, and each line left out with the index of its first missing reference. */
interface UpsertResult {
  readonly changed: ReadonlyArray<Record<string, unknown>>
  readonly missing: ReadonlyArray<readonly [line: number, ref: number]>
}

/**
 * One statement a batch: the rows read, their references looked up, the lines naming a
 * reference that does not exist left out and answered (`missing`), the others upserted. The
 * references were first probed by a statement each (issue 29: three statements an ads batch,
 * each lookup done twice).
 */
const upsertStatement = (spec: TableSpec) => {
  const targets = [...spec.columns.map((c) => c.name), ...spec.refs.map((r) => r.column), ...spec.computed.map(([c]) => c)]
  const values = [
    ...spec.columns.map((c) => (c.absent === undefined ? `r.${c.name}` : `coalesce(r.${c.name}, ${c.absent})`)),
    ...spec.refs.map((_, i) => `ref${i}.id`),
    ...spec.computed.map(([, expression]) => expression)
  ]
  // Lateral lookups with `limit 1` (which keeps the planner from flattening them into joins):
  // one unique-index probe per row, whatever the planner believes of tables an import has
  // just filled.
  const joins = spec.refs.map((ref, i) =>
    `left join lateral (select t.* from ${ref.table} t where t.external_id = r.${ref.field}` +
    (ref.scope ? ` and t.${ref.scope[0]} = r.${ref.scope[1]}` : "") + ` limit 1) ref${i} on true`
  )
  // The first reference (in `refs` order) a line names and that does not exist.
  const missing = spec.refs.length === 0
    ? "null::integer"
    : `case ${spec.refs.map((ref, i) => `when r.${ref.field} is not null and ref${i}.id is null then ${i}`).join(" ")} end`
  const updates = targets.filter((t) => !spec.key.includes(t) && !(spec.keeps ?? []).includes(t)).map((t) => `${t} = excluded.${t}`)
  return `with batch as (
      select r.line, ${missing} as missing, ${values.map((v, i) => `${v} as ${targets[i]}`).join(", ")}
        from ${positionalRecordset(fieldsOf(spec))}
        ${joins.join("\n        ")}
    ), written as (
      insert into ${spec.table} (${targets.join(", ")})
      select ${targets.join(", ")} from batch where missing is null
      on conflict ${spec.constraint === undefined ? `(${spec.key.join(", ")})` : `on constraint ${spec.constraint}`} do update set ${updates.join(", ")}
      where ${spec.table}.content_hash is distinct from excluded.content_hash
      ${spec.returning === undefined ? "" : `returning ${spec.returning}`}
    )
    select ${spec.returning === undefined ? "'[]'::json" : "(select coalesce(json_agg(w), '[]') from written w)"} as changed,
           (select coalesce(json_agg(json_build_array(line, missing) order by line), '[]') from batch where missing is not null) as missing`
}

const Nullable = Schema.NullOr(Schema.String)
const StoredAdRow = Schema.Struct({
  id: Schema.String,
  advertiser_id: Schema.String,
  moves: Schema.Boolean,
  status: Schema.String,
  library: Schema.String,
  external_id: Schema.String,
  content_hash: Schema.String,
  lander_id: Nullable,
  first_seen: Schema.String,
  niche: Nullable,
  countries: Schema.Array(Schema.String),
  languages: Schema.Array(Schema.String),
  headline: Nullable,
  body: Nullable,
  description: Nullable,
  hook: Nullable
})

/** An ad a batch inserted or changed, as the ads' upsert returns it (`tables.ads.returning`). */
const WrittenAd = Schema.Struct({ id: Schema.String, lander_id: Nullable, day: Schema.String, status: Schema.String })
export type WrittenAd = typeof WrittenAd.Type

/** An ad as stored before a batch rewrites it: what counts derived from it hold (its copy: what trends counted). */
export interface StoredAd extends AdCopy {
  /** The ad's row id. */
  readonly id: string
  readonly advertiser_id: string
  /** The batch names another advertiser for it, one that exists (`moveAds`). */
  readonly moves: boolean
  readonly external_id: string
  /** Before the batch: an ad that turns inactive stopped (brand diffs, H3). */
  readonly status: string
  readonly content_hash: string
  readonly lander_id: string | null
}

/** Values of a batch the database refused (SQLSTATE class 22 or 23), with its reason in one line. */
export class DataRefused extends Data.TaggedError("DataRefused")<{ readonly reason: string }> {}

/** PostgreSQL's reason, when a defect is its refusal of the data rather than a failure of its own. */
const dataException = (defect: unknown): Option.Option<string> => {
  const code = sqlStateOf(defect)
  if (code === undefined || !/^2[23]/.test(code) || !(defect instanceof SqlError)) return Option.none()
  const cause: unknown = defect.cause
  return Option.some(oneLine(cause instanceof Error ? cause.message : code, 160))
}

/** An input line the database refused, and why, naming the field. */
export interface LineError {
  readonly line: number
  readonly error: string
}

export class IngestRepo extends Effect.Service<IngestRepo>()("adintel/IngestRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const sharded = (yield* databaseMode)._tag === "Citus"
    /** Database failures are defects here (STYLE: Errors); a batch's transaction rolls back. */
    const run = <A extends object = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown>) =>
      Effect.orDie(sql.unsafe<A>(text, params))
    const statements = new Map(Object.values(tables).map((spec) => [spec.table, upsertStatement(spec)]))
    const toPositional = new Map(Object.values(tables).map((spec) => [spec.table, positionalRow(fieldsOf(spec).map((c) => c.name))]))

    /**
     * Upserts rows of one table: rows with unknown references are left out and reported (the
     * first failing field), the others written, in one statement. Rows whose content did not
     * change are not rewritten.
     */
    const upsert = (spec: TableSpec, rows: ReadonlyArray<Row>) =>
      Effect.gen(function*() {
        if (rows.length === 0) return { written: rows, changed: [], errors: [] }
        const [result] = yield* run<UpsertResult>(statements.get(spec.table)!, [JSON.stringify(rows.map(toPositional.get(spec.table)!))])
        const errors = new Map(result!.missing.map(([line, i]): [number, string] => [line, `${spec.refs[i]!.field}: ${spec.refs[i]!.missing}`]))
        const valid = errors.size === 0 ? rows : rows.filter((row) => !errors.has(row.line))
        // Names and popularity changed: the suggestions' strings (migration 0016) no longer hold;
        // until they are computed again, suggestions read the catalog. In the batch's transaction.
        if (valid.length > 0 && suggestionSources.has(spec.table)) yield* run(`delete from shop_rollup_state where entity = 'suggestions'`, [])
        return { written: valid, changed: result!.changed, errors: Array.from(errors, ([line, error]): LineError => ({ line, error })) }
      })

    /** Upserts ads: `upsert`, and the ads it inserted or changed. */
    const upsertAds = (rows: ReadonlyArray<Row>) =>
      Effect.flatMap(upsert(tables.ads, rows), ({ changed, errors }) =>
        Effect.map(Effect.orDie(Schema.decodeUnknown(Schema.Array(WrittenAd))(changed)), (ads) => ({ changed: ads, errors })))

    /** Names of advertisers about to change: their ads' full-text documents must follow. */
    const renamedAdvertisers = (rows: ReadonlyArray<Row>) =>
      run<{ id: string }>(
        `select a.id::text from json_to_recordset($1::json) as r(platform text, external_id text, name text)
           join lateral (select id, name from advertisers a where a.platform = r.platform and a.external_id = r.external_id limit 1) a on true
          where a.name is distinct from r.name`,
        [JSON.stringify(rows.map((r) => ({ platform: r["platform"], external_id: r["external_id"], name: r["name"] })))]
      ).pipe(Effect.map((found) => found.map((r) => r.id)))

    const reindexAdsOf = (advertiserIds: ReadonlyArray<string>) =>
      advertiserIds.length === 0 ? Effect.void : run(
        `update ads set search_vector = ${adSearchVector("ads.headline", "a.name", "ads.description", "ads.body")}
           from advertisers a where a.id = ads.advertiser_id and a.id = any($1::bigint[])`,
        [advertiserIds]
      ).pipe(Effect.asVoid)

    /**
     * The products a video features: the list sent replaces the previous one. Two statements:
     * a data-modifying CTE would not see its own deletes, and re-sending a list must keep it.
     */
    const replaceVideoProducts = (rows: ReadonlyArray<Row>) => {
      const desired = `
        select v.id as video_id, p.id as product_id
          from json_to_recordset($1::json) as r(region text, external_id text, product_external_ids text[])
          join lateral (select id from shop_videos v where v.region = r.region and v.external_id = r.external_id limit 1) v on true
          cross join lateral unnest(coalesce(r.product_external_ids, '{}')) as wanted(external_id)
          join lateral (select id from shop_products p where p.region = r.region and p.external_id = wanted.external_id limit 1) p on true`
      const sent = `
        select v.id from json_to_recordset($1::json) as r(region text, external_id text)
          join lateral (select id from shop_videos v where v.region = r.region and v.external_id = r.external_id limit 1) v on true`
      const params = [JSON.stringify(rows.map((r) => ({ region: r["region"], external_id: r["external_id"], product_external_ids: r["product_external_ids"] })))]
      return Effect.zipRight(
        run(`delete from shop_video_products vp where vp.video_id in (${sent})
               and (vp.video_id, vp.product_id) not in (${desired})`, params),
        run(`insert into shop_video_products (video_id, product_id) select distinct video_id, product_id from (${desired}) d
             on conflict do nothing`, params)
      ).pipe(Effect.asVoid)
    }

    /** Lines listing external ids (of `table`, same region) that do not exist. */
    const missingInList = (rows: ReadonlyArray<Row>, field: string, table: string, missing: string) =>
      run<{ line: number }>(
        `select distinct r.line from json_to_recordset($1::json) as r(line integer, region text, ids text[])
           cross join lateral unnest(r.ids) as wanted(external_id)
          where (select t.id from ${table} t where t.region = r.region and t.external_id = wanted.external_id) is null`,
        [JSON.stringify(rows.filter((r) => { const ids = r[field]; return Array.isArray(ids) && ids.length > 0 }).map((r) => ({ line: r.line, region: r["region"], ids: r[field] })))]
      ).pipe(Effect.map((found) => found.map(({ line }): LineError => ({ line, error: `${field}: ${missing}` }))))

    /** Daily points of one subject table; a day sent again replaces that day's values. */
    const upsertDaily = (subject: DailyTable, points: ReadonlyArray<Readonly<Record<string, unknown>>>) => {
      const { table, owner, ownerTable, metrics } = dailyTables[subject]
      const sets = metrics.map((m) => `${m} = excluded.${m}`).join(", ")
      const distinct = `(${metrics.map((m) => `${table}.${m}`).join(", ")}) is distinct from (${metrics.map((m) => `excluded.${m}`).join(", ")})`
      return run(
        `insert into ${table} (${owner}, day, ${metrics.join(", ")})
         select o.id, r.day, ${metrics.map((m) => `r.${m}`).join(", ")}
           from json_to_recordset($1::json) as r(region text, external_id text, day date, ${metrics.map((m) => `${m} numeric`).join(", ")})
           join lateral (select id from ${ownerTable} o where o.region = r.region and o.external_id = r.external_id limit 1) o on true
         on conflict (${owner}, day) do update set ${sets} where ${distinct}`,
        [JSON.stringify(points)]
      ).pipe(
        // The series changed: the explore rollups (migration 0014) no longer hold; until they are
        // computed again, explore sums the series itself. In the batch's own transaction.
        Effect.zipRight(run(`delete from shop_rollup_state`, [])),
        Effect.asVoid
      )
    }

    /** Lines whose metric subject does not exist. */
    const missingSubjects = (subject: DailyTable, rows: ReadonlyArray<Row>) =>
      run<{ line: number }>(
        `select r.line from json_to_recordset($1::json) as r(line integer, region text, external_id text)
          where (select t.id from ${dailyTables[subject].ownerTable} t where t.region = r.region and t.external_id = r.external_id) is null`,
        [JSON.stringify(rows.map((r) => ({ line: r.line, region: r["region"], external_id: r["external_id"] })))]
      ).pipe(Effect.map((found) => found.map(({ line }): LineError => ({ line, error: `external_id: no ${subject} of this region has this external_id` }))))

    /** Hosted stores' observation lines whose product (of that store) does not exist (issue 20). */
    const missingStoreProducts = (rows: ReadonlyArray<Row>) =>
      run<{ line: number }>(
        `select r.line from json_to_recordset($1::json) as r(line integer, store_external_id text, external_id text)
          where (select p.id from store_products p join stores s on s.id = p.store_id
                  where s.external_id = r.store_external_id and p.external_id = r.external_id limit 1) is null`,
        [JSON.stringify(rows)]
      ).pipe(Effect.map((found) => found.map(({ line }): LineError => ({ line, error: "external_id: no product of this store has this external_id" }))))

    /**
     * Daily observations of hosted stores' products (a day sent again replaces it), then what is
     * estimated from them, in the batch's transaction: a product's units sold on a day are the
     * drop in its inventory since the day before; unknown (null, never 0) when the stock is
     * hidden, a day is missing, or stock went up (a restock hides that day's sales). The store's
     * daily sums follow; a day on which no product shows its stock stays unknown.
     */
    const upsertStoreObservations = (points: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
      Effect.gen(function*() {
        const touched = yield* run<{ product_id: string }>(
          `insert into store_product_daily (product_id, day, price, inventory)
           select p.id, r.day, r.price, r.inventory
             from json_to_recordset($1::json) as r(store_external_id text, external_id text, day date, price numeric, inventory integer)
             join lateral (select p.id from store_products p join stores s on s.id = p.store_id
                            where s.external_id = r.store_external_id and p.external_id = r.external_id limit 1) p on true
           on conflict (product_id, day) do update set price = excluded.price, inventory = excluded.inventory
           where (store_product_daily.price, store_product_daily.inventory) is distinct from (excluded.price, excluded.inventory)
           returning product_id::text`,
          [JSON.stringify(points)]
        )
        if (touched.length === 0) return
        const products = Array.from(new Set(touched.map((t) => t.product_id)))
        // Their stores, by a query of its own: on Citus a subquery in RETURNING would run on a
        // shard and query the cluster from there.
        const stores = (yield* run<{ store_id: string }>(
          `select distinct store_id::text from store_products where id = any($1::bigint[])`,
          [products]
        )).map((t) => t.store_id)
        yield* run(
          `update store_product_daily d set units = e.units
             from (
               select product_id, day,
                      case when inventory is not null and previous is not null and previous_day = day - 1 and previous >= inventory
                           then previous - inventory end as units
                 from (select product_id, day, inventory,
                              lag(inventory) over w as previous, lag(day) over w as previous_day
                         from store_product_daily where product_id = any($1::bigint[])
                       window w as (partition by product_id order by day)) o
             ) e
            where d.product_id = e.product_id and d.day = e.day and d.units is distinct from e.units`,
          [products]
        )
        yield* run(
          `insert into store_daily (store_id, day, units, revenue, products)
           select p.store_id, d.day, sum(d.units), sum(d.units * coalesce(d.price, p.price)), count(*)
             from store_product_daily d join store_products p on p.id = d.product_id
            where p.store_id = any($1::bigint[])
            group by p.store_id, d.day
           on conflict (store_id, day) do update set units = excluded.units, revenue = excluded.revenue, products = excluded.products
           where (store_daily.units, store_daily.revenue, store_daily.products)
                 is distinct from (excluded.units, excluded.revenue, excluded.products)`,
          [stores]
        )
      })
    /**
     * The stored state of the ads a batch is about to write, by `library/external_id`: what
     * their landers' ad counts and the trend counts hold of them, and whether the batch moves
     * the ad to another advertiser (`moves`: the advertiser it names exists and is another).
     * Two imports of one ad take turns: each takes a transaction lock on the ad's library and
     * external id first, in one order (a row lock would do on one PostgreSQL; Citus refuses
     * `FOR UPDATE` over several shards), and sees what the other wrote.
     */
    const adsBefore = (rows: ReadonlyArray<Row>) =>
      Effect.zipRight(
        run(
          `select count(pg_advisory_xact_lock(hashtextextended(k, ${adLockSpace}))) from (select k from unnest($1::text[]) k order by k) s`,
          [Array.from(new Set(rows.map((r) => `${String(r["library"])}/${String(r["external_id"])}`)))]
        ),
        run(
          `select a.id::text as id, a.advertiser_id::text as advertiser_id, a.status, a.library, a.external_id, a.content_hash,
                  a.lander_id::text as lander_id,
                  to_char(a.first_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as first_seen,
                  a.niche, a.countries, a.languages, a.headline, a.body, a.description, a.hook,
                  coalesce(n.id <> a.advertiser_id, false) as moves
             from json_to_recordset($1::json) as r(library text, external_id text, advertiser_external_id text)
             join ads a on a.library = r.library and a.external_id = r.external_id
             left join lateral (select v.id from advertisers v where v.platform = r.library and v.external_id = r.advertiser_external_id limit 1) n on true
            order by a.id`,
          [JSON.stringify(rows.map((r) => ({ library: r["library"], external_id: r["external_id"], advertiser_external_id: r["advertiser_external_id"] })))]
        )
      ).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(StoredAdRow))),
        Effect.orDie,
        Effect.map((found) => new Map(found.map((ad): [string, StoredAd] => [`${ad.library}/${ad.external_id}`, ad])))
      )

    /**
     * Ads a batch moves to another advertiser, deleted before the batch writes them again under
     * their own ids (`stored_id`): on Citus an ad lives on its advertiser's shard, and a
     * distribution column is never updated. What hangs off the ad (hashes, embeddings, signals,
     * stops) goes with it and is derived again.
     */
    const moveAds = (moving: ReadonlyArray<StoredAd>) =>
      moving.length === 0 ? Effect.void : run(
        `delete from ads where id = any($1::bigint[]) and advertiser_id = any($2::bigint[])`,
        [moving.map((ad) => ad.id), moving.map((ad) => ad.advertiser_id)]
      ).pipe(Effect.asVoid)

    /**
     * Landers' ad counts after a batch changed ads (issue 20): each lander an ad left (`left`)
     * loses one, each one it links to now (`joined`) gains one (`lander_ad_counts`, migration
     * 0079). The counts are locked in id order first, so two import lanes moving the same counts
     * wait for each other instead of deadlocking. The deltas are summed here: reading them back
     * from the ads cost more than the ads' own upsert.
     */
    const moveLanderCounts = (left: ReadonlyArray<string>, joined: ReadonlyArray<string>) => {
      const deltas = new Map<string, number>()
      for (const id of left) deltas.set(id, (deltas.get(id) ?? 0) - 1)
      for (const id of joined) deltas.set(id, (deltas.get(id) ?? 0) + 1)
      const moved = Array.from(deltas).filter(([, d]) => d !== 0).sort(([a], [b]) => Number(a) - Number(b))
      if (moved.length === 0) return Effect.void
      const params = [moved.map(([id]) => id), moved.map(([, d]) => d)]
      return Effect.zipRight(
        run(`select c.lander_id from lander_ad_counts c where c.lander_id = any($1::bigint[]) order by c.lander_id for update`, [params[0]]),
        run(`update lander_ad_counts c set ads_count = c.ads_count + d.d from unnest($1::bigint[], $2::int[]) as d(id, d) where c.lander_id = d.id`, params)
      ).pipe(Effect.asVoid)
    }

    /**
     * What the lander library keeps of each lander a batch wrote (migration 0107 moved it here
     * from triggers): its ad count's row (`lander_ad_counts`, 0079), made once, and its facets
     * (`lander_facets`, 0081), written when a filtered value changed. Niche and platform are kept
     * lower-cased, as explore compares them.
     */
    const landerRows = (externalIds: ReadonlyArray<string>) =>
      externalIds.length === 0 ? Effect.void : Effect.zipRight(
        run(
          `insert into lander_ad_counts (lander_id, external_id)
           select id, external_id from landers where external_id = any($1::text[])
           on conflict (lander_id) do nothing`,
          [externalIds]
        ),
        run(
          `insert into lander_facets as f
           select id, page_type, lower(niche), lower(platform), domain, countries, languages, first_seen, last_seen, offer_price, currency
             from landers where external_id = any($1::text[])
           on conflict (lander_id) do update set
             page_type = excluded.page_type, niche_key = excluded.niche_key, platform_key = excluded.platform_key,
             domain = excluded.domain, countries = excluded.countries, languages = excluded.languages,
             first_seen = excluded.first_seen, last_seen = excluded.last_seen, offer_price = excluded.offer_price,
             currency = excluded.currency
           where (f.page_type, f.niche_key, f.platform_key, f.domain, f.countries, f.languages, f.first_seen, f.last_seen, f.offer_price, f.currency)
             is distinct from
                 (excluded.page_type, excluded.niche_key, excluded.platform_key, excluded.domain, excluded.countries, excluded.languages,
                  excluded.first_seen, excluded.last_seen, excluded.offer_price, excluded.currency)`,
          [externalIds]
        )
      ).pipe(Effect.asVoid)

    /**
     * Fresh planner statistics for tables an import has just grown: a statement per table (on
     * Citus one ANALYZE of a distributed and a reference table is refused, as DDL on both over
     * parallel connections), without the statement timeout, as background work runs: on Citus
     * the ads' ANALYZE samples each of their shards, and at a million ads it went past the 15 s
     * that bound a request's statements, failing the import that had stored them all.
     */
    const analyze = (tables: ReadonlyArray<string>) =>
      Effect.forEach(tables, (table) => Effect.orDie(sql.withTransaction(Effect.zipRight(unboundedStatements(sql), run(`analyze ${table}`, [])))), {
        discard: true
      })

    return {
      upsert,
      upsertAds,
      analyze,
      adsBefore,
      moveAds,
      moveLanderCounts,
      landerRows,
      renamedAdvertisers,
      reindexAdsOf,
      replaceVideoProducts,
      missingInList,
      upsertDaily,
      missingSubjects,
      missingStoreProducts,
      upsertStoreObservations,
      /** Whether the corpus is sharded (a Citus coordinator, `citus.ts`). */
      sharded,
      /**
       * Runs a batch's statements in one transaction: a batch is written whole or not at all.
       * A value the schemas let through but the database refuses (a data exception or a
       * constraint, SQLSTATE classes 22 and 23) is `DataRefused`, with PostgreSQL's reason;
       * anything else (connection, disk) stays a defect.
       */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | DataRefused, R> =>
        // On Citus a batch reads what it wrote to many shards in one transaction, so it writes
        // them over one connection per worker: the workers at once, a worker's shards in turn
        // (Citus's sequential mode). Over several connections to a worker, a later statement
        // that joins what two of them wrote is refused ("cannot perform query with placements
        // that were modified over multiple connections"). The lanes (`Ingest`) are the other
        // parallelism: each lane's transaction has its own connections.
        // Its statements also run without the statement timeout there, as background work does
        // (`unboundedStatements`): each runs a task per shard, and one may wait for the other
        // lane's batch to commit (the landers' counts, above), which the 15 s that bound a
        // request's statements need not cover (SPEC-NOTES "Citus mode").
        sql.withTransaction(
          sharded
            ? Effect.zipRight(run(`set local citus.multi_shard_modify_mode to 'sequential'`, []), Effect.zipRight(unboundedStatements(sql), effect))
            : effect
        ).pipe(
          Effect.catchIf((e): e is SqlError => e instanceof SqlError, Effect.die),
          Effect.catchSomeDefect((defect) => Option.map(dataException(defect), (reason) => Effect.fail(new DataRefused({ reason }))))
        )
    }
  })
}) {}

export type DailyTable = MetricSubject

/** Where each subject's daily series lives; its metric columns are the record's (`metricsOf`). */
const dailyTables = {
  category: { table: "shop_category_daily", owner: "category_id", ownerTable: "shop_categories", metrics: metricsOf.category },
  shop: { table: "shop_shop_daily", owner: "shop_id", ownerTable: "shop_shops", metrics: metricsOf.shop },
  creator: { table: "shop_creator_daily", owner: "creator_id", ownerTable: "shop_creators", metrics: metricsOf.creator },
  product: { table: "shop_product_daily", owner: "product_id", ownerTable: "shop_products", metrics: metricsOf.product },
  video: { table: "shop_video_daily", owner: "video_id", ownerTable: "shop_videos", metrics: metricsOf.video }
} satisfies Record<MetricSubject, { readonly table: string; readonly owner: string; readonly ownerTable: string; readonly metrics: ReadonlyArray<string> }>
