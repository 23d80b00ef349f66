import { SqlClient, SqlSchema } from "@effect/sql"
import { Duration, Effect, Option, Schema } from "effect"
import type { AdView } from "./Api.js"
import { type After, AdSearchRepo, decodeAdRows, type Ranked, toView, viewColumns } from "./AdSearchRepo.js"
import type { AdFilters, Library } from "./Filters.js"
import { AdId } from "../../kernel/Ids.js"
import { databaseMode } from "../../platform/db/mode/DatabaseMode.js"
import { ReadSql } from "../../platform/db/Replicas.js"

/** 64-bit perceptual hashes of a creative, as stored (signed bigint). */
export interface CreativeHashes {
  readonly phash: bigint
  readonly dhash: bigint
}

/** A text to compare with: the copy, its distinct lexemes, and the rare ones candidates must share. */
export interface TextProbe {
  readonly text: string
  readonly lexemes: ReadonlyArray<string>
  readonly anchors: ReadonlyArray<string>
}

/** An ad and the score an engine outside the database gave it. */
export interface GivenScore {
  readonly id: string
  readonly score: number
}

/**
 * What a similar-ads search compares with: a text scored in SQL, a creative, scores computed
 * elsewhere (an embedding model's), or several of them (an ad's copy and its creative).
 */
export interface SimilarityProbe {
  readonly text: Option.Option<TextProbe>
  readonly image: Option.Option<CreativeHashes>
  readonly given?: ReadonlyArray<GivenScore>
}

/** A text candidate and its copy, for an engine that scores outside the database. */
const TextCandidate = Schema.Struct({ id: Schema.String, text: Schema.String })
export type TextCandidate = typeof TextCandidate.Type

export interface SimilarPlan {
  readonly libraries: ReadonlyArray<Library>
  readonly filters: AdFilters
  readonly after: Option.Option<After>
  readonly take: number
  /** The ad the search started from: never among its own results. */
  readonly exclude: Option.Option<string>
}

/** The hashes of one ad's creative, and the media they were computed from (null: generated). */
export interface CreativeOf {
  readonly library: string
  readonly externalId: string
  readonly hashes: CreativeHashes
  readonly mediaUrl: string | null
}

/** What the source ad of an `ad_id` search offers to compare with. */
export interface SourceAd {
  readonly rowId: string
  readonly library: string
  readonly text: string | null
  readonly hashes: Option.Option<CreativeHashes>
}

export type SimilarRow = Ranked<AdView & { readonly similarity: number }>

/**
 * Text candidates: the ads sharing one of the query's rarest words (read at most
 * `maxTextMatches` of them), the `maxTextCandidates` with the largest overlap of words are
 * scored in full. This bounds the work of any query; a similar-ads search lists at most that
 * many ads found by their copy.
 */
export const maxTextMatches = 20_000
export const maxTextCandidates = 300
/**
 * Image matches are kept up to this many differing bits (of 128, both hashes together):
 * recompressed or resized copies differ by a few bits, unrelated images by about 64.
 */
export const maxImageDistance = 24

const decodeScored = decodeAdRows({ score: Schema.Number })

/** A lexeme of a query and the share of ads holding it. */
const LexemeFrequency = Schema.Struct({ lexeme: Schema.String, freq: Schema.Number })
/** What the shards' statistics say (Citus): the shards that did not answer, the ads' count, and the common lexemes with their shares, in lexeme order. */
const ShardStatistics = Schema.Struct({ unanswered: Schema.NumberFromString, ads: Schema.Number, lexemes: Schema.Array(Schema.String), freqs: Schema.Array(Schema.Number) })
/** How long the shards' statistics are kept once read (`ShardStatistics`). */
export const shardStatisticsFor = Duration.minutes(10)
/** The planner's estimate of a table's rows. */
const RowEstimate = Schema.Struct({ n: Schema.Number })
/** A source ad's row id, library, copy and creative hashes (signed bigints as text). */
const SourceRow = Schema.Struct({
  row_id: Schema.String,
  library: Schema.String,
  text: Schema.NullOr(Schema.String),
  phash: Schema.NullOr(Schema.String),
  dhash: Schema.NullOr(Schema.String)
})
/** A stored embedding of an ad's copy and the hash of that copy. */
const StoredEmbedding = Schema.Struct({ id: Schema.String, text_hash: Schema.Uint8ArrayFromSelf, embedding: Schema.Array(Schema.Number) })
/** An ad whose creative waits to be hashed, and the media URL to hash it from. */
const PendingCreative = Schema.Struct({ id: Schema.String, library: Schema.String, external_id: AdId, media_url: Schema.String })

export class SimilarityRepo extends Effect.Service<SimilarityRepo>()("adintel/SimilarityRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Magic-ai's reads (the query's lexemes, candidates, the ranked page) go to a healthy replica
    // when one is configured (issue 31); what it stores (embeddings, creative hashes) and the
    // embeddings it reads back before storing more stay on the primary.
    const read = yield* ReadSql
    const ads = yield* AdSearchRepo
    const sharded = (yield* Effect.provideService(databaseMode, SqlClient.SqlClient, read))._tag === "Citus"

    const distance = (hashes: CreativeHashes) =>
      sql`(bit_count((c.phash # ${String(hashes.phash)}::bigint)::bit(64)) + bit_count((c.dhash # ${String(hashes.dhash)}::bigint)::bit(64)))`

    /** The share of words two copies have in common (Jaccard), from the ad's full-text lexemes. */
    const overlap = (probe: TextProbe) => {
      const shared = sql`(length(a.search_vector) - length(ts_delete(a.search_vector, ${probe.lexemes}::text[])))`
      return sql`(${shared}::float8 / greatest(length(a.search_vector) + ${probe.lexemes.length} - ${shared}, 1))`
    }

    /**
     * Text: the mean of the word overlap and pg_trgm's similarity of the copy, both in [0, 1].
     * Image: 1 - d/64 for the d bits (of 128) in which the hashes differ, so an unrelated
     * image (about 64) scores 0.
     */
    const textScore = (probe: TextProbe) =>
      sql`(${overlap(probe)} + similarity(${probe.text}, concat_ws(' ', a.headline, a.body))) / 2`
    const imageScore = (hashes: CreativeHashes) =>
      sql`case when c.ad_id is null then 0 else greatest(0, 1 - ${distance(hashes)}::float8 / 64) end`

    const filtersOf = (plan: SimilarPlan) =>
      sql.and([
        ads.where(plan.libraries, plan.filters),
        Option.match(plan.exclude, { onNone: () => sql`true`, onSome: (id) => sql`a.id <> ${id}::bigint` })
      ])

    /**
     * The most common lexemes of the ads' full-text documents, each with the share of ads that
     * hold it, from the planner's statistics of `ads`.
     */
    const commonLexemes = sql`
      select e.lexeme, e.freq
        from pg_stats s,
             unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(lexeme, freq)
       where s.schemaname = current_schema() and s.tablename = 'ads' and s.attname = 'search_vector'`

    /**
     * On Citus the planner's statistics of `ads` are each shard's, on its worker: the
     * coordinator's `ads` holds no rows and has none (magic-ai then took every word for a rare
     * one, and scanned the corpus for its common words). Read there: the ads' count summed over
     * the shards, and each common lexeme's share of ads, its shares over the shards weighted by
     * their ads (0 where it is not among a shard's most common). A catalog query per shard, some
     * 300 ms for the 32: what was read is kept for `shardStatisticsFor` (statistics change when
     * the shards are analyzed: after a large import, or by autovacuum); a failed read is not kept.
     */
    const [shardStatistics, forgetShardStatistics] = yield* Effect.cachedInvalidateWithTTL(
      SqlSchema.single({
        Request: Schema.Void,
        Result: ShardStatistics,
        execute: () => read`
          with shard as (
            select result::json as stats from run_command_on_shards('ads', $cmd$
              select json_build_object(
                       'ads', (select greatest(reltuples, 0) from pg_class where oid = t.shard),
                       'lexemes', (select coalesce(json_agg(json_build_array(e.lexeme, e.freq)), '[]')
                                     from pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(lexeme, freq)
                                    where (s.schemaname || '.' || s.tablename)::regclass = t.shard and s.attname = 'search_vector'
                                      and e.lexeme is not null))
                from (select '%s'::regclass as shard) t$cmd$)
             where success
          ), lexemes as (
            select e->>0 as lexeme, sum((e->>1)::float8 * (shard.stats->>'ads')::float8) / nullif((select sum((stats->>'ads')::float8) from shard), 0) as freq
              from shard cross join json_array_elements(shard.stats->'lexemes') e
             group by e->>0)
          select (select count(*) from pg_dist_shard where logicalrelid = 'ads'::regclass) - (select count(*) from shard) as unanswered,
                 coalesce((select sum((stats->>'ads')::float8) from shard), 0)::float8 as ads,
                 coalesce((select array_agg(lexeme order by lexeme) from lexemes), '{}') as lexemes,
                 coalesce((select array_agg(freq order by lexeme) from lexemes), '{}')::float8[] as freqs`
      })(undefined).pipe(Effect.orDie, Effect.withSpan("SimilarityRepo.shardStatistics")),
      shardStatisticsFor
    )
    // Shards that did not answer (a worker down) leave a partial figure, used once and not kept.
    const shardStatisticsRead = shardStatistics.pipe(
      Effect.tap((stats) => (stats.unanswered > 0 ? forgetShardStatistics : Effect.void)),
      Effect.onError(() => forgetShardStatistics)
    )

    /**
     * The ads worth scoring for a text: sharing an anchor, the most shared words first. One
     * branch per library, so each uses its library's full-text index.
     */
    const textCandidates = (text: TextProbe, plan: SimilarPlan) => {
      const anchors = sql`array_to_string(array(select quote_literal(l) from unnest(${text.anchors}::text[]) l), ' | ')::tsquery`
      const perLibrary = plan.libraries.map((library) => sql`(
        select a.id, ${overlap(text)} as overlap from ads a
         where ${filtersOf({ ...plan, libraries: [library] })} and a.search_vector @@ ${anchors}
         limit ${maxTextMatches})`)
      return sql`
        select id from (${sql.join(" union all ", false)(perLibrary)}) m
         order by overlap desc, id desc
         limit ${maxTextCandidates}`
    }

    return {
      /**
       * The query's distinct lexemes with how common each is among ads (share of rows, from the
       * planner's statistics; 0 when the word is not among the most common ones).
       */
      lexemes: (text: string) =>
        Effect.flatMap(sharded ? Effect.asSome(shardStatisticsRead) : Effect.succeedNone, (known) => {
          const stats = Option.getOrUndefined(known)
          return SqlSchema.findAll({
            Request: Schema.Void,
            Result: LexemeFrequency,
            execute: () => read`
            with stats as (${stats === undefined ? commonLexemes : sql`select * from unnest(${stats.lexemes}::text[], ${stats.freqs}::float8[]) as s(lexeme, freq)`})
            select q.lexeme, coalesce((select max(freq) from stats where stats.lexeme = q.lexeme), 0)::float8 as freq
              from unnest(tsvector_to_array(to_tsvector('english', ${text}))) as q(lexeme)
             order by 2, 1`
          })(undefined).pipe(Effect.orDie)
        }),

      /** The number of ads, as the planner last counted them. */
      estimatedAds: sharded
        ? Effect.map(shardStatisticsRead, (stats) => stats.ads)
        : SqlSchema.findOne({
          Request: Schema.Void,
          Result: RowEstimate,
          execute: () => read`select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'ads'::regclass`
        })(undefined).pipe(
          Effect.map(Option.match({ onNone: () => 0, onSome: ({ n }) => n })),
          Effect.orDie
        ),

      /**
       * The ads with this id in these libraries (one per library at most), or the ad with this
       * row id, and what they offer to compare with.
       */
      sources: (which: { readonly libraries: ReadonlyArray<Library>; readonly externalId: AdId } | { readonly rowId: string }) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: SourceRow,
          execute: () => read`
          select a.id::text as row_id, a.library, nullif(concat_ws(' ', a.headline, a.body, a.description), '') as text,
                 c.phash::text as phash, c.dhash::text as dhash
            from ads a left join ad_creatives c on c.advertiser_id = a.advertiser_id and c.ad_id = a.id
           where ${"rowId" in which
          ? sql`a.id = ${which.rowId}::bigint`
          : sql`a.external_id = ${which.externalId} and a.library = any(${which.libraries}::text[])`}
           order by a.library`
        })(undefined).pipe(
          Effect.map((rows) =>
            rows.map((r): SourceAd => ({
              rowId: r.row_id,
              library: r.library,
              text: r.text,
              hashes: r.phash === null || r.dhash === null
                ? Option.none()
                : Option.some({ phash: BigInt(r.phash), dhash: BigInt(r.dhash) })
            }))
          ),
          Effect.orDie
        ),

      /**
       * One keyset page of the ads most like the probe, best first. Candidates: the ads sharing
       * one of the text's anchors (the `maxTextCandidates` sharing most words) and the ads whose
       * creative is within `maxImageDistance`; each scores the better of its two similarities.
       */
      similar: (probe: SimilarityProbe, plan: SimilarPlan): Effect.Effect<ReadonlyArray<SimilarRow>> => {
        const filters = filtersOf(plan)
        const none = sql`select null::bigint as id where false`
        const given = probe.given ?? []
        const texts = Option.match(probe.text, { onNone: () => none, onSome: (text) => textCandidates(text, plan) })
        // The distance first, on the narrow hash table alone; the filters on what is left.
        const imageCandidates = Option.match(probe.image, {
          onNone: () => none,
          onSome: (hashes) => sql`
            select a.id from (select advertiser_id, ad_id from ad_creatives c where ${distance(hashes)} <= ${maxImageDistance}) near
              join ads a on a.advertiser_id = near.advertiser_id and a.id = near.ad_id
             where ${filters}`
        })
        const score = sql`greatest(${
          Option.match(probe.text, { onNone: () => sql`0`, onSome: textScore })
        }, ${Option.match(probe.image, { onNone: () => sql`0`, onSome: imageScore })}, coalesce(g.score, 0))::float8`
        const after = Option.match(plan.after, {
          onNone: () => sql`true`,
          onSome: ([value, id]) => sql`(score, id) < (${value}::float8, ${id}::bigint)`
        })
        // Scores for the candidates only; the full view for the page only.
        return read`
          with given as (select * from unnest(${given.map((g) => g.id)}::bigint[], ${given.map((g) => g.score)}::float8[]) as g(id, score)),
          candidates as ((${texts}) union (${imageCandidates}) union (select id from given)),
          scored as (
            select a.id, ${score} as score
              from candidates k join ads a on a.id = k.id
              left join ad_creatives c on c.advertiser_id = a.advertiser_id and c.ad_id = a.id
              left join given g on g.id = a.id),
          page as (
            select id, score from scored
             where score > 0 and ${after}
             order by score desc, id desc
             limit ${plan.take})
          select ${sql.literal(viewColumns)}, p.score
            from page p join ads a on a.id = p.id join advertisers adv on adv.id = a.advertiser_id
           order by p.score desc, p.id desc`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeScored),
          Effect.map((rows) =>
            rows.map((r): SimilarRow => ({
              ad: { ...toView(r), similarity: Math.round(r.score * 10_000) / 10_000 },
              after: [String(r.score), r.row_id] as const
            }))
          )
        )
      },

      /** The text candidates (see `similar`) with their copy, for an engine that scores them itself. */
      textCandidates: (text: TextProbe, plan: SimilarPlan): Effect.Effect<ReadonlyArray<TextCandidate>> =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: TextCandidate,
          execute: () => read`
          select a.id::text as id, concat_ws(' ', a.headline, a.body, a.description) as text
            from (${textCandidates(text, plan)}) k join ads a on a.id = k.id
           order by a.id`
        })(undefined).pipe(Effect.orDie),

      /** Stored embeddings of these ads' copy by `model`, with the hash of the text each is of. */
      embeddings: (ids: ReadonlyArray<string>, model: string) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: StoredEmbedding,
          execute: () => sql`
          select ad_id::text as id, text_hash, embedding from ad_embeddings
           where model = ${model} and ad_id = any(${ids}::bigint[])`
        })(undefined).pipe(
          Effect.map((rows) => new Map(rows.map((r) => [r.id, { textHash: Buffer.from(r.text_hash).toString("hex"), embedding: r.embedding }]))),
          Effect.orDie
        ),

      saveEmbeddings: (rows: ReadonlyArray<{ id: string; textHash: string; embedding: ReadonlyArray<number> }>, model: string, now: Date) =>
        rows.length === 0 ? Effect.void : sql`
          insert into ad_embeddings (advertiser_id, ad_id, model, text_hash, embedding, embedded_at)
          select a.advertiser_id, u.id, ${model}, decode(u.text_hash, 'hex'), array(select jsonb_array_elements_text(u.embedding)::real), ${now}
            from unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.textHash)}::text[],
                        ${rows.map((r) => JSON.stringify(r.embedding))}::jsonb[]) as u(id, text_hash, embedding)
            join ads a on a.id = u.id
          on conflict (advertiser_id, ad_id, model) do update set text_hash = excluded.text_hash, embedding = excluded.embedding,
                                                   embedded_at = excluded.embedded_at`.pipe(Effect.asVoid, Effect.orDie),

      /** Stores the hashes of ads' creatives (demo data, the creative hasher), by the ads' ids. */
      saveHashes: (rows: ReadonlyArray<CreativeOf>, now: Date) =>
        rows.length === 0 ? Effect.void : sql`
          insert into ad_creatives (advertiser_id, ad_id, phash, dhash, media_url, hashed_at)
          select a.advertiser_id, a.id, u.phash, u.dhash, u.media_url, ${now}
            from unnest(${rows.map((r) => r.library)}::text[], ${rows.map((r) => r.externalId)}::text[],
                        ${rows.map((r) => String(r.hashes.phash))}::bigint[], ${rows.map((r) => String(r.hashes.dhash))}::bigint[],
                        ${rows.map((r) => r.mediaUrl)}::text[]) as u(library, external_id, phash, dhash, media_url)
            join ads a on a.library = u.library and a.external_id = u.external_id
          on conflict (advertiser_id, ad_id) do update set phash = excluded.phash, dhash = excluded.dhash, error = null,
                                            media_url = excluded.media_url, hashed_at = excluded.hashed_at`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      /**
       * Ads whose creative (an image, or a video's thumbnail) has no hashes for its current URL,
       * after `afterId`, in id order; failed ones only when `retryFailed`.
       */
      pendingCreatives: (afterId: string, take: number, retryFailed: boolean) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: PendingCreative,
          execute: () => sql`
          select id, library, external_id, media_url from (
            select a.advertiser_id, a.id, a.library, a.external_id,
                   case when a.media->0->>'type' = 'image' then a.media->0->>'url' else a.media->0->>'thumbnail_url' end as media_url
              from ads a
             where a.id > ${afterId}::bigint and jsonb_array_length(a.media) > 0
             order by a.id) m
           where media_url is not null
             and not exists (
               select 1 from ad_creatives c
                where c.advertiser_id = m.advertiser_id and c.ad_id = m.id and c.media_url = m.media_url and (c.error is null or not ${retryFailed}))
           -- In id order here too: the caller pages on the last id, and the anti-join need not keep the inner order.
           order by id
           limit ${take}`
        })(undefined).pipe(Effect.orDie),

      /** Records why a creative could not be hashed (no hashes: it never matches an image search). */
      saveFailure: (adId: string, mediaUrl: string, reason: string, now: Date) =>
        sql`
          insert into ad_creatives (advertiser_id, ad_id, phash, dhash, media_url, hashed_at, error)
          select advertiser_id, id, null, null, ${mediaUrl}, ${now}, ${reason} from ads where id = ${adId}::bigint
          on conflict (advertiser_id, ad_id) do update set phash = null, dhash = null, media_url = excluded.media_url,
                                            hashed_at = excluded.hashed_at, error = excluded.error`.pipe(Effect.asVoid, Effect.orDie)
    }
  }),
  dependencies: [AdSearchRepo.Default]
}) {}
