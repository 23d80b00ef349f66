import { NodeContext } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { AdIntelApi } from "../src/app/Api.js"
import { McpContract } from "../src/mcp/McpTools.js"
import { AppConfig } from "../src/platform/AppConfig.js"
import { TestDatabase } from "./support/TestDatabase.js"
import { testEnvironment } from "./support/TestServer.js"
import { AudioExtractor } from "../src/transcripts/engines/audio/AudioExtractor.js"
import { MediaFetcher } from "../src/transcripts/engines/media/MediaFetcher.js"
import { ScriptWriter } from "../src/transcripts/engines/script/ScriptWriter.js"
import { Transcriber } from "../src/transcripts/engines/speech/Transcriber.js"

/**
 * Every `Effect.Service` declares what it uses in `dependencies` (issue 18; STYLE.md, "Typed all
 * the way"): its `.Default` builds on the database, the configuration and Node's platform alone,
 * whatever else the server happens to provide. Found by reading `src/`, so a service added later
 * is checked without touching this file. The deliberate exceptions: the transcript pipeline's
 * engines (tests and configuration choose them) and the contract MCP serves (the server gives it).
 */

const src = path.resolve("src")
const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const declared = filesUnder(src).flatMap((file) =>
  [...fs.readFileSync(file, "utf8").matchAll(/export class (\w+) extends Effect\.Service</g)].map((match) => ({ file, name: match[1]! }))
)

const unused = Effect.die("not in this test")
const pipeline = Layer.mergeAll(
  Layer.succeed(MediaFetcher, MediaFetcher.of({ fetch: () => unused })),
  Layer.succeed(AudioExtractor, AudioExtractor.of({ engine: "none", toWav: () => unused })),
  Layer.succeed(Transcriber, Transcriber.of({ engine: "none", transcribe: () => unused })),
  Layer.succeed(ScriptWriter, ScriptWriter.of({ engine: "none", write: () => unused }))
)

/** The contract MCP serves its tools from: the server gives the whole (app/Server.ts). */
const contract = Layer.succeed(McpContract, AdIntelApi)

/** Swap points: what a service takes from its surroundings on purpose, and the layer a test gives it. */
const swapPoints: Record<string, Layer.Layer<any, any, any>> = { Transcripts: pipeline, McpTools: contract, Mcp: contract }

const base = Layer.mergeAll(TestDatabase, AppConfig.layerWith({}), NodeContext.layer).pipe(Layer.provide(testEnvironment()))

describe("services", () => {
  layer(base)((it) => {
    it.effect("each builds from its own dependencies", () =>
      Effect.gen(function*() {
        const failures: Array<string> = []
        for (const { file, name } of declared) {
          const module: Record<string, unknown> = yield* Effect.promise(() => import(pathToFileURL(file).href))
          const service = module[name] as { readonly Default: Layer.Layer<unknown, unknown, never> }
          const own = swapPoints[name] === undefined ? service.Default : service.Default.pipe(Layer.provide(swapPoints[name]!))
          const exit = yield* Effect.exit(Effect.scoped(Layer.build(own)))
          if (Exit.isFailure(exit)) failures.push(`${path.relative(src, file)} ${name}: ${String(exit.cause).split("\n")[0]}`)
        }
        expect(declared.length).toBeGreaterThan(30)
        expect(failures).toEqual([])
      }), { timeout: 60_000 })
  })
})
