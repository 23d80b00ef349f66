import { Chunk, Effect, Either, GroupBy, Option, Schema, Stream } from "effect"
import { describeParseError, fieldName } from "../kernel/Issues.js"
import { parseJson } from "../kernel/Json.js"
import { importedRecords, record } from "../platform/telemetry/Metrics.js"
import { mayHoldUnstorable, textRule, unstorableTextAt } from "../kernel/Text.js"
import { IngestRepo, type LineError } from "./IngestRepo.js"
import { TrendCounts } from "../ads/trends/TrendCounts.js"
import { type Entity, entities, type Numbered } from "./Entities.js"
import { SavedSearches } from "../ads/savedSearches/SavedSearches.js"
import { BrandDiffs } from "../ads/brands/BrandDiffs.js"
import { ImportEvents } from "../access/events/ImportEvents.js"
import type { EntityName } from "./Records.js"
import { serviceSpan } from "../platform/telemetry/Tracing.js"

/** What an import answers (spec of the admin ingest route). */
export interface IngestReport {
  readonly accepted: number
  readonly rejected: number
  /** In line order; at most `maxReportedErrors` (the counts stay exact). */
  readonly errors: ReadonlyArray<LineError>
}

export interface IngestProgress {
  readonly lines: number
  readonly accepted: number
  readonly rejected: number
}

/** Records per transaction: a crash loses at most the batch in flight, never half a record. */
export const batchSize = 1_000

/**
 * Records per batch on a Citus coordinator (issue 45). Each statement of an ads batch runs a task
 * on every shard its ads are on, nearly all of them, whatever the batch's size: a batch four
 * times the size pays those tasks once for four times the ads. Measured at the demo scale
 * (`bench:data`, `BENCH_DATABASES=citus`): 989 against 1,883 ads/s, and the CPU an ad 467 against
 * 306 µs on the coordinator, about 555 against 214 µs on each worker (docs/SCALING.md section 5).
 */
export const citusBatchSize = 4_000

/** Records per batch: `citusBatchSize` on a Citus coordinator, else `batchSize`. */
export const batchSizeOf = (sharded: boolean) => (sharded ? citusBatchSize : batchSize)
export const maxReportedErrors = 1_000
/** A line longer than this many bytes is refused (it cannot be a record within the field limits). */
export const maxLineLength = 1_048_576
/** An import this large refreshes the planner statistics of its tables. */
const analyzeAfter = 1_000

type Parsed = { readonly line: number; readonly value: Either.Either<unknown, string> }

/** A line after validation: refused (lane -1), or a record for the lane of its key. */
type Checked =
  | { readonly line: number; readonly lane: number; readonly error: string }
  | { readonly line: number; readonly lane: number; readonly key: string; readonly record: unknown }

/**
 * Writes run in this many concurrent lanes (transactions on separate connections), a record's
 * lane chosen by its key: the database uses more than one core, and the lines of one record
 * stay in order.
 */
export const defaultLanes = 2

/** The lane of a record's key (exported for tests that need one import's records in one lane: one batch, one pass). */
export const laneOf = (key: string, lanes: number) => {
  let hash = 0
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0
  return Math.abs(hash) % lanes
}

/** Stands for a line that was too long to keep: its bytes were dropped as they streamed in. */
const oversized = Symbol("oversized")
/** Stands for a line whose bytes are not UTF-8. */
const notUtf8 = Symbol("notUtf8")
type Line = string | typeof oversized | typeof notUtf8

const newline = 0x0a
const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * Lines of a byte stream, each at most `max` bytes and decoded as UTF-8 on its own: a longer
 * line is not accumulated in memory (a file without newlines cannot exhaust it), it becomes
 * `oversized`; a line that is not UTF-8 becomes `notUtf8`, and the lines around it are read as
 * usual (a newline byte never occurs inside a UTF-8 character).
 */
export const boundedLines = (max: number) => <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Line, E, R> =>
  Stream.suspend(() => {
    let parts: Array<Uint8Array> = []
    let size = 0
    let tooLong = false
    const take = (piece: Uint8Array) => {
      if (tooLong || piece.length === 0) return
      if (size + piece.length > max) {
        tooLong = true
        parts = []
        size = 0
      } else {
        parts.push(piece)
        size += piece.length
      }
    }
    const end = (): Line => {
      const whole = tooLong ? undefined : Buffer.concat(parts, size)
      parts = []
      size = 0
      tooLong = false
      if (whole === undefined) return oversized
      const trimmed = whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.subarray(0, -1) : whole
      try {
        return utf8.decode(trimmed)
      } catch {
        return notUtf8
      }
    }
    return bytes.pipe(
      Stream.mapConcat((chunk) => {
        const out: Array<Line> = []
        let start = 0
        for (let at = chunk.indexOf(newline); at !== -1; at = chunk.indexOf(newline, start)) {
          take(chunk.subarray(start, at))
          out.push(end())
          start = at + 1
        }
        take(chunk.subarray(start))
        return out
      }),
      Stream.concat(Stream.suspend(() => (size > 0 || tooLong ? Stream.make(end()) : Stream.empty)))
    )
  })

/** How an import validates a record: the first error only, fields it does not know ignored. Exported for `bench:data`'s import profile. */
export const recordDecoder = <A, I>(schema: Schema.Schema<A, I>) =>
  Schema.decodeUnknownEither(schema, { errors: "first", onExcessProperty: "ignore" })

/**
 * One line to a value, or why it cannot be a record: the same boundary rules as a request
 * body (UTF-8, the JSON depth limit, storable text, kernel/), so a bad line is a refused line
 * with its number, never a failed import. Exported for `bench:data`'s import profile.
 */
export const parseLine = (text: Line, line: number): Parsed => {
  if (text === oversized) return { line, value: Either.left(`line is longer than ${maxLineLength} bytes`) }
  if (text === notUtf8) return { line, value: Either.left("line is not valid UTF-8") }
  return { line, value: Either.flatMap(parseJson(text), (value) => checkRecordShape(value, mayHoldUnstorable(text))) }
}

/**
 * A parsed line that can be validated: an object whose text PostgreSQL can store (searched
 * only when the line's JSON text may hold a string it cannot: `mayHoldUnstorable`).
 */
const checkRecordShape = (value: unknown, search: boolean): Either.Either<unknown, string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Either.left("not a JSON object")
  if (!search) return Either.right(value)
  return Option.match(unstorableTextAt(value), {
    onNone: () => Either.right(value),
    onSome: (path) => Either.left(`${path.length === 0 ? "a field name" : fieldName(path)}: ${textRule}`)
  })
}

/**
 * Imports records of one entity: each line validated against the entity's schema, valid ones
 * upserted by external id in batches of `batchSizeOf` records, one transaction each; invalid ones
 * reported with their line number and the field at fault. Real files and the demo generator
 * go through this same path.
 */
export class Ingest extends Effect.Service<Ingest>()("adintel/Ingest", {
  effect: Effect.gen(function*() {
    const repo = yield* IngestRepo
    const trendCounts = yield* TrendCounts
    const savedSearches = yield* SavedSearches
    const brandDiffs = yield* BrandDiffs
    const importEvents = yield* ImportEvents
    /** What an entity's writes derive from in the batch's transaction. */
    const derived = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.provideService(TrendCounts, trendCounts),
        Effect.provideService(SavedSearches, savedSearches),
        Effect.provideService(BrandDiffs, brandDiffs),
        Effect.provideService(ImportEvents, importEvents)
      )

    const run = <E, R>(
      name: EntityName,
      items: Stream.Stream<Parsed, E, R>,
      onProgress: (progress: IngestProgress) => Effect.Effect<void> = () => Effect.void
    ): Effect.Effect<IngestReport, E, R> => {
      // (`any`: the entity's record type depends on `name`; each entity's schema and writer agree on it.)
      const entity: Entity<any> = entities[name]
      const lanes = (repo.sharded ? entity.citusLanes : undefined) ?? entity.lanes ?? defaultLanes
      const decode = recordDecoder(entity.schema)

      const check = ({ line, value }: Parsed): Checked => {
        const record = Either.flatMap(value, (raw) => Either.mapLeft(decode(raw), describeParseError))
        if (Either.isLeft(record)) return { line, lane: -1, error: record.left }
        const key = entity.key(record.right)
        return { line, lane: laneOf(key, lanes), key, record: record.right }
      }

      // A batch the database refuses (a value the schemas let through, such as a count over
      // its column's range) is written again one record per transaction, so the bad record is a
      // refused line with its number and the others are stored.
      const write = (records: ReadonlyArray<Numbered<unknown>>): Effect.Effect<ReadonlyArray<LineError>> =>
        repo.transaction(derived(entity.write(repo, records))).pipe(
          Effect.map(({ errors }) => errors),
          Effect.catchTag("DataRefused", ({ reason }) =>
            records.length === 1
              ? Effect.succeed([{ line: records[0]!.line, error: `could not be stored: ${reason}` }])
              : Effect.map(Effect.forEach(records, (record) => write([record])), (each) => each.flat()))
        )

      // One lane's batch: records of one transaction. A later line with the same key replaces
      // an earlier one; a key always goes to the same lane, so lanes never race on a record.
      const writeBatch = (batch: Chunk.Chunk<Checked>) =>
        Effect.gen(function*() {
          const errors: Array<LineError> = []
          const valid = new Map<string, Numbered<unknown>>()
          for (const item of batch) {
            if ("error" in item) errors.push({ line: item.line, error: item.error })
            else {
              valid.delete(item.key)
              valid.set(item.key, { line: item.line, record: item.record })
            }
          }
          const records = Array.from(valid.values())
          errors.push(...(records.length === 0 ? [] : yield* write(records)))
          return { lines: Chunk.size(batch), rejected: errors.length, errors }
        })

      const whole = Effect.suspend(() => {
        const progress = { lines: 0, accepted: 0, rejected: 0 }
        // The errors with the smallest line numbers, at most `maxReportedErrors` once trimmed:
        // lanes finish in any order, so a later batch may hold earlier lines.
        let errors: Array<LineError> = []
        const trim = () => (errors = errors.sort((x, y) => x.line - y.line).slice(0, maxReportedErrors))
        return items.pipe(
          Stream.map(check),
          Stream.grouped(batchSizeOf(repo.sharded)),
          // Each batch split by lane; streams carry whole sub-batches from here on, so the
          // per-record cost of the plumbing is paid per batch.
          Stream.mapConcat((batch) => {
            const byLane = new Map<number, Array<Checked>>()
            for (const item of batch) {
              const lane = byLane.get(item.lane)
              if (lane) lane.push(item)
              else byLane.set(item.lane, [item])
            }
            return Array.from(byLane, ([lane, items]) => ({ lane, items: Chunk.unsafeFromArray(items) }))
          }),
          // Validate ahead while the database writes.
          Stream.buffer({ capacity: 4 }),
          Stream.groupByKey((sub) => sub.lane, { bufferSize: 4 }),
          GroupBy.evaluate((_, lane) => lane.pipe(Stream.mapEffect((sub) => writeBatch(sub.items)))),
          Stream.runForEach((batch) => {
            progress.lines += batch.lines
            progress.rejected += batch.rejected
            progress.accepted += batch.lines - batch.rejected
            errors.push(...batch.errors)
            if (errors.length > 2 * maxReportedErrors) trim()
            return Effect.zipRight(record(importedRecords, batch.lines - batch.rejected, { entity: name }), onProgress({ ...progress }))
          }),
          Effect.tap(() => (progress.accepted >= analyzeAfter ? repo.analyze(entity.tables) : Effect.void)),
          Effect.tap(() =>
            progress.accepted > 0 && entity.afterImport !== undefined
              ? derived(entity.afterImport)
              : Effect.void
          ),
          Effect.map((): IngestReport => ({ accepted: progress.accepted, rejected: progress.rejected, errors: trim() }))
        )
      })
      return entity.duringImport === undefined ? whole : derived(entity.duringImport(whole))
    }

    return {
      /**
       * Waits until what imports derive after they return (the ads' trend counts) holds every
       * record stored so far, on any replica: tests and the admin CLI wait on this, not on time.
       */
      settled: trendCounts.flush,

      /** NDJSON bytes, one record per line; blank lines are skipped (but counted for numbering). */
      lines: Effect.fn("Ingest.lines", serviceSpan)(<E, R>(name: EntityName, bytes: Stream.Stream<Uint8Array, E, R>, onProgress?: (p: IngestProgress) => Effect.Effect<void>) =>
        run(
          name,
          bytes.pipe(
            boundedLines(maxLineLength),
            Stream.zipWithIndex,
            Stream.filter(([line]) => typeof line !== "string" || line.trim() !== ""),
            Stream.map(([text, index]) => parseLine(text, index + 1))
          ),
          onProgress
        )),

      /** Records already parsed (the demo generator): the same validation and writes. */
      records: Effect.fn("Ingest.records", serviceSpan)(<E, R>(name: EntityName, records: Stream.Stream<unknown, E, R>, onProgress?: (p: IngestProgress) => Effect.Effect<void>) =>
        run(
          name,
          records.pipe(Stream.zipWithIndex, Stream.map(([value, index]) => ({ line: index + 1, value: Either.right(value) }))),
          onProgress
        ))
    }
  }),
  dependencies: [IngestRepo.Default, TrendCounts.Default, SavedSearches.Default, BrandDiffs.Default, ImportEvents.Default]
}) {}
