import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { progressLine } from "../platform/Progress.js"
import { DemoData } from "./DemoData.js"
import { scales } from "./World.js"
import { keysOf } from "../kernel/Guards.js"

/** `npm run admin -- demo --scale bench`: generates and loads a demo world, with progress. */
export const demoCommand = Command.make(
  "demo",
  {
    scale: Options.choice("scale", keysOf(scales)).pipe(
      Options.withDefault("demo" as const),
      Options.withDescription("small (seconds), demo (tens of thousands of ads), bench (a million ads)")
    ),
    seed: Options.integer("seed").pipe(Options.withDefault(1), Options.withDescription("Same seed, same world"))
  },
  ({ scale, seed }) =>
    Effect.gen(function*() {
      const demo = yield* DemoData
      const progress = yield* progressLine(`demo ${scale}`)
      const reports = yield* demo.load({
        scale,
        seed,
        onProgress: ({ done, entity, total }) => progress.update(done, total, entity)
      })
      const seconds = yield* progress.finish
      for (const [entity, report] of Object.entries(reports)) {
        yield* Console.log(`${entity.padEnd(16)} ${String(report.accepted).padStart(10)} records`)
      }
      yield* Console.log(`Loaded the ${scale} world (seed ${seed}) in ${seconds.toFixed(1)} s`)
    })
).pipe(Command.withDescription("Generate and load a deterministic demo world"))
