import { Chunk, Effect, Either, GroupBy, Schema, Stream } from "effect"
import { describeParseError } from "../Issues.js"
import { CatalogRepo, type LineError } from "./CatalogRepo.js"
import { type Entity, entities, type Numbered } from "./Entities.js"
import type { EntityName } from "./records/index.js"

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
export const maxReportedErrors = 1_000
/** A line longer than this is refused (it cannot be a record within the field limits). */
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

const laneOf = (key: string, lanes: number) => {
  let hash = 0
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0
  return Math.abs(hash) % lanes
}

/** Stands for a line that was too long to keep: its text was dropped as it streamed in. */
const oversized = Symbol("oversized")

/**
 * Lines of a text stream, each at most `max` characters: a longer line is not accumulated in
 * memory (a file without newlines cannot exhaust it), it becomes `oversized`.
 */
export const boundedLines = (max: number) => <E, R>(text: Stream.Stream<string, E, R>) =>
  Stream.suspend(() => {
    let current = ""
    let tooLong = false
    const take = (piece: string) => {
      if (tooLong) return
      if (current.length + piece.length > max) {
        tooLong = true
        current = ""
      } else current += piece
    }
    const end = (): string | typeof oversized => {
      const line = tooLong ? oversized : current.endsWith("\r") ? current.slice(0, -1) : current
      current = ""
      tooLong = false
      return line
    }
    return text.pipe(
      Stream.mapConcat((chunk) => {
        const out: Array<string | typeof oversized> = []
        let start = 0
        for (let newline = chunk.indexOf("\n"); newline !== -1; newline = chunk.indexOf("\n", start)) {
          take(chunk.slice(start, newline))
          out.push(end())
          start = newline + 1
        }
        take(chunk.slice(start))
        return out
      }),
      Stream.concat(Stream.suspend(() => (current !== "" || tooLong ? Stream.make(end()) : Stream.empty)))
    )
  })

const parseLine = (text: string | typeof oversized, line: number): Parsed => {
  if (text === oversized) return { line, value: Either.left(`line is longer than ${maxLineLength} characters`) }
  try {
    return { line, value: Either.right(JSON.parse(text)) }
  } catch (error) {
    return { line, value: Either.left(`invalid JSON: ${(error as Error).message}`) }
  }
}

/**
 * Imports records of one entity: each line validated against the entity's schema, valid ones
 * upserted by external id in batches of `batchSize`, one transaction each; invalid ones
 * reported with their line number and the field at fault. Real files and the demo generator
 * go through this same path.
 */
export class Ingest extends Effect.Service<Ingest>()("adintel/Ingest", {
  effect: Effect.gen(function*() {
    const repo = yield* CatalogRepo

    const run = <E, R>(
      name: EntityName,
      items: Stream.Stream<Parsed, E, R>,
      onProgress: (progress: IngestProgress) => Effect.Effect<void> = () => Effect.void
    ): Effect.Effect<IngestReport, E, R> => {
      const entity: Entity<any> = entities[name]
      const lanes = entity.lanes ?? defaultLanes
      const decode = Schema.decodeUnknownEither(entity.schema, { errors: "first", onExcessProperty: "ignore" })

      const check = ({ line, value }: Parsed): Checked => {
        const record = Either.flatMap(value, (raw) => Either.mapLeft(decode(raw), describeParseError))
        if (Either.isLeft(record)) return { line, lane: -1, error: record.left }
        const key = entity.key(record.right)
        return { line, lane: laneOf(key, lanes), key, record: record.right }
      }

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
          const written = records.length === 0 ? { errors: [] } : yield* repo.transaction(entity.write(repo, records))
          errors.push(...written.errors)
          return { lines: Chunk.size(batch), rejected: errors.length, errors }
        })

      return Effect.suspend(() => {
        const progress = { lines: 0, accepted: 0, rejected: 0 }
        // The errors with the smallest line numbers, at most `maxReportedErrors` once trimmed:
        // lanes finish in any order, so a later batch may hold earlier lines.
        let errors: Array<LineError> = []
        const trim = () => (errors = errors.sort((x, y) => x.line - y.line).slice(0, maxReportedErrors))
        return items.pipe(
          Stream.map(check),
          Stream.grouped(batchSize),
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
            return onProgress({ ...progress })
          }),
          Effect.tap(() => (progress.accepted >= analyzeAfter ? repo.analyze(entity.tables) : Effect.void)),
          Effect.map((): IngestReport => ({ accepted: progress.accepted, rejected: progress.rejected, errors: trim() }))
        )
      })
    }

    return {
      /** NDJSON text, one record per line; blank lines are skipped (but counted for numbering). */
      lines: <E, R>(name: EntityName, text: Stream.Stream<string, E, R>, onProgress?: (p: IngestProgress) => Effect.Effect<void>) =>
        run(
          name,
          text.pipe(
            boundedLines(maxLineLength),
            Stream.zipWithIndex,
            Stream.filter(([line]) => line === oversized || line.trim() !== ""),
            Stream.map(([text, index]) => parseLine(text, index + 1))
          ),
          onProgress
        ),

      /** Records already parsed (the demo generator): the same validation and writes. */
      records: <E, R>(name: EntityName, records: Stream.Stream<unknown, E, R>, onProgress?: (p: IngestProgress) => Effect.Effect<void>) =>
        run(
          name,
          records.pipe(Stream.zipWithIndex, Stream.map(([value, index]) => ({ line: index + 1, value: Either.right(value) }))),
          onProgress
        )
    }
  }),
  dependencies: [CatalogRepo.Default]
}) {}
