import { Args, Command } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect } from "effect"
import { progressLine } from "../platform/Progress.js"
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
      const progress = yield* progressLine(`import ${entity}`)
      const report = yield* ingest.lines(entity, fs.stream(file), ({ accepted, lines, rejected }) =>
        progress.update(lines, undefined, `(${accepted} accepted, ${rejected} rejected)`))
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
