import { Chunk, Effect, Either, Schema, Stream } from "effect"
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
      const entity = entities[name] as unknown as Entity<unknown>
      const decode = Schema.decodeUnknownEither(entity.schema, { errors: "first", onExcessProperty: "ignore" })

      const writeBatch = (batch: Chunk.Chunk<Parsed>) =>
        Effect.gen(function*() {
          const errors: Array<LineError> = []
          const valid = new Map<string, Numbered<unknown>>()
          for (const { line, value } of batch) {
            const record = Either.flatMap(value, (raw) => Either.mapLeft(decode(raw), describeParseError))
            if (Either.isLeft(record)) errors.push({ line, error: record.left })
            else {
              // A later line with the same key replaces an earlier one of the batch.
              const key = entity.key(record.right)
              valid.delete(key)
              valid.set(key, { line, record: record.right })
            }
          }
          const records = Array.from(valid.values())
          const written = records.length === 0 ? { errors: [] } : yield* repo.transaction(entity.write(repo, records))
          errors.push(...written.errors)
          return { lines: Chunk.size(batch), rejected: errors.length, errors }
        })

      return items.pipe(
        Stream.grouped(batchSize),
        // Parse and validate the next batch while the database writes this one.
        Stream.buffer({ capacity: 2 }),
        Stream.mapEffect(writeBatch),
        Stream.runFoldEffect(
          { lines: 0, accepted: 0, rejected: 0, errors: [] as Array<LineError> },
          (report, batch) => {
            const next = {
              lines: report.lines + batch.lines,
              rejected: report.rejected + batch.rejected,
              accepted: report.accepted + batch.lines - batch.rejected,
              errors: report.errors.length >= maxReportedErrors
                ? report.errors
                : [...report.errors, ...batch.errors.sort((a, b) => a.line - b.line)].slice(0, maxReportedErrors)
            }
            return Effect.as(onProgress({ lines: next.lines, accepted: next.accepted, rejected: next.rejected }), next)
          }
        ),
        Effect.tap(({ accepted }) => (accepted >= analyzeAfter ? repo.analyze(entity.tables) : Effect.void)),
        Effect.map(({ accepted, errors, rejected }): IngestReport => ({ accepted, rejected, errors }))
      )
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
