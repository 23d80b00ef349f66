import { Args, Command } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Stream } from "effect"
import { progressLine, progressOf } from "../platform/Progress.js"
import { Ingest } from "./Ingest.js"
import { entityNames } from "./Records.js"

/**
 * `npm run admin -- import <entity> <file.ndjson>`: the admin ingest route's work from a file,
 * with progress on a terminal. Prints the same report as the route; exits 1 when some lines
 * were refused (the others are stored).
 */
export const importCommand = Command.make(
  "import",
  {
    entity: Args.choice(entityNames.map((name) => [name, name] as const), { name: "entity" }),
    file: Args.file({ name: "file.ndjson", exists: "yes" })
  },
  ({ entity, file }) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const ingest = yield* Ingest
      // The share and the time left by bytes read of the file's size; records per second beside them (issue 29).
      const size = Number((yield* fs.stat(file)).size)
      const progress = yield* progressLine(`import ${entity}`, "bytes")
      const records = yield* progressOf("records")
      let read = 0
      const bytes = fs.stream(file).pipe(Stream.tap((chunk) => Effect.sync(() => (read += chunk.length))))
      const report = yield* ingest.lines(entity, bytes, ({ accepted, lines, rejected }) =>
        Effect.flatMap(records.text(lines, undefined), (text) => progress.update(read, size, `(${text}: ${accepted} accepted, ${rejected} rejected)`)))
      const seconds = yield* progress.finish
      yield* Console.log(JSON.stringify(report, null, 2))
      yield* Console.error(
        `${report.accepted} accepted, ${report.rejected} rejected in ${seconds.toFixed(1)} s (${Math.round((report.accepted + report.rejected) / Math.max(seconds, 0.001))} lines/s)`
      )
      if (report.rejected > 0) {
        return yield* Effect.fail(new Error(`${report.rejected} line(s) refused (listed above); the others are stored`))
      }
    })
).pipe(Command.withDescription(`Import NDJSON records of one entity: ${entityNames.join(", ")}`))
