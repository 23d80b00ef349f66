import { randomUUID } from "node:crypto"
import { Context, Duration, Effect, Option } from "effect"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { OutboxRepo } from "./OutboxRepo.js"
import { PendingEventsRepo, type Teller } from "./PendingEventsRepo.js"
import { now } from "../../kernel/UtcDay.js"

/**
 * The import the current batch belongs to (set by `ImportEvents.duringImport` around the whole
 * import, so every lane's batches see it): what its batches find is told once, at its end.
 */
export class CurrentImport extends Context.Tag("adintel/CurrentImport")<CurrentImport, { readonly id: string }>() {}

/**
 * An import's pending rows are taken by a later import's end once it wrote nothing for this
 * long: it died before its own end (a killed process), and its committed finds are told then.
 */
export const staleImportAfter = Duration.hours(1)

/**
 * Events told once per import rather than once per batch (issue 32; H1, H3; SPEC-NOTES "One
 * generic pending-per-import mechanism"): each batch writes, in its own transaction, pending rows
 * under its import's id (`pendingFrom`, inside `inBatch`); the import's end, whether success,
 * failure or interrupt, turns every pending row of the import into one event per account, type
 * and subject, counts summed and the newest 100 ads named, in one statement (`duringImport`).
 * Saved searches' new matches and tracked brands' diffs both go through it (the saved searches'
 * per query, told by their own `Teller`: one event per account naming each search).
 */
export class ImportEvents extends Effect.Service<ImportEvents>()("adintel/ImportEvents", {
  effect: Effect.gen(function*() {
    const repo = yield* PendingEventsRepo
    const outbox = yield* OutboxRepo

    /** Records the events of import `id` (and of imports that died before their end) in one transaction: its pending rows', then the `also` tellers'. */
    const tell = (id: string, at: Date, also: ReadonlyArray<Teller>) =>
      repo.tell(id, new Date(at.getTime() - Duration.toMillis(staleImportAfter)), (found) => outbox.insertFrom(found, at), also)

    return {
      /** The insert of pending rows for import `importId` (`PendingEventsRepo.insertFrom`), to embed in a batch's statement. */
      pendingFrom: repo.insertFrom,

      /**
       * Runs one batch's writes of pending rows (call it in the batch's transaction) under the
       * current import's id; a batch outside an import is an import of its own, told in its
       * transaction right after (with the `also` tellers of the pending rows it writes elsewhere).
       */
      inBatch: <A, E, R>(write: (importId: string) => Effect.Effect<A, E, R>, at: Date, also: ReadonlyArray<Teller> = []): Effect.Effect<A, E, R> =>
        Effect.flatMap(Effect.serviceOption(CurrentImport), (current) =>
          Option.match(current, {
            onSome: ({ id }) => write(id),
            onNone: () =>
              Effect.suspend(() => {
                const id = randomUUID()
                return Effect.zipLeft(write(id), tell(id, at, also))
              })
          })),

      /**
       * Runs an import (every lane of it) as one import: what its batches left pending is told
       * when it ends, whether it succeeded, failed or was interrupted, one event per account,
       * type and subject, in one transaction; the `also` tellers tell the pending rows its
       * batches wrote elsewhere (the saved searches' per query) in the same one.
       */
      duringImport: <A, E, R>(effect: Effect.Effect<A, E, R>, also: ReadonlyArray<Teller> = []): Effect.Effect<A, E, Exclude<R, CurrentImport>> =>
        Effect.suspend(() => {
          const id = randomUUID()
          return effect.pipe(
            Effect.provideService(CurrentImport, { id }),
            Effect.ensuring(Effect.flatMap(now, (at) => tell(id, at, also)).pipe(
              Effect.withSpan("ImportEvents.tell"),
              Effect.catchAllCause((cause) => Effect.logError("The import's events wait for a later import", cause))
            ))
          )
        }),

      /** Forgets what is pending about one subject (it was deleted). */
      forget: Effect.fn("ImportEvents.forget", serviceSpan)(repo.forget)
      // (`pendingFrom` answers SQL to embed; `inBatch` and `duringImport` wrap work that has its own spans.)
    }
  }),
  dependencies: [PendingEventsRepo.Default, OutboxRepo.Default]
}) {}
