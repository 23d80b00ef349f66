import { describe, expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { inject } from "vitest"
import { AccountEvents } from "../src/access/events/AccountEvents.js"
import { freePort } from "../src/platform/db/EmbeddedPostgres.js"
import { TestDatabaseUrl } from "./support/TestDatabase.js"
import { tempDir } from "./support/TempDir.js"
import { account } from "./support/TestServer.js"
import { countAt, fresh, get, nextAt, Receiver, register, world } from "./support/Webhooks.js"

/**
 * Webhooks (issue 32; INTERPRETATIONS H3) survive a service killed with deliveries in flight:
 * the service runs as its own process on the file's database, beside the world of
 * webhooks.test.ts (its receiver, an in-process replica for set-up).
 */

/**
 * The service as an operator runs it (`src/main`, from the run's compiled tree: CompiledTree.ts), on the file's database,
 * real time, its webhook workers polling every 2 s; `kill` is SIGKILL. Stopped (SIGINT) with the scope.
 * A claimed delivery's lease is its attempt's 10 s timeout and 1 s (`WEBHOOK_LEASE_MARGIN`, 30 s
 * by default): what a killed process held is sent again 11 s after its claim, not 40.
 */
const service = Effect.gen(function*() {
  const url = yield* TestDatabaseUrl
  const dir = yield* tempDir("webhooks")
  const port = yield* Effect.promise(freePort)
  return yield* Effect.acquireRelease(
    Effect.sync(() => {
      const { DATABASE_URL: _url, DATA_DIR: _dir, PORT: _port, ...env } = process.env
      const child = spawn(process.execPath, [path.join(inject("compiledTree"), "src", "main.js")], {
        env: {
          ...env,
          DATABASE_URL: Redacted.value(url),
          DATA_DIR: dir,
          PORT: String(port),
          HOST: "127.0.0.1",
          DEMO_DATA: "false",
          KEY_ENCRYPTION_SECRET: "test-key-encryption-secret-0123456789",
          WEBHOOK_ALLOW_LOOPBACK: "true",
          WEBHOOK_MAX_CONCURRENT: "4",
          WEBHOOK_MAX_PER_ENDPOINT: "4",
          WEBHOOK_LEASE_MARGIN: "1 second"
        },
        stdio: "ignore"
      })
      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
      return { child, closed }
    }),
    ({ child, closed }) => Effect.promise(() => (child.kill("SIGINT"), closed))
  ).pipe(Effect.map(({ child, closed }) => ({
    kill: Effect.promise(() => (child.kill("SIGKILL"), closed)),
    /** `effect`, or a defect if the process ends first. */
    whileUp: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.raceFirst(effect, Effect.zipRight(Effect.promise(() => closed), Effect.dieMessage("the service exited")))
  })))
})

describe("webhooks (H2, H3)", () => {
  layer(world, { timeout: 120_000 })((it) => {
    it.scoped("kill -9 of the service with deliveries in flight: after a restart every event arrives, none lost", () =>
      Effect.gen(function*() {
        yield* fresh
        const receiver = yield* Receiver
        const a = yield* account()
        const { id } = yield* register(a.api_key, "/hook-kill", ["brand.ads_new"])
        // The first four requests hang: the four attempts the first process has in flight when it dies.
        receiver.script.set("/hook-kill", Array(4).fill("hang"))
        const events = yield* AccountEvents
        // Real time: the children's clocks are the machine's.
        const emitted = yield* events.emit(Array.from({ length: 10 }, (_, n) => ({ accountId: a.id, type: "brand.ads_new" as const, data: { n } })), new Date())

        const first = yield* service
        for (let i = 0; i < 4; i++) yield* first.whileUp(nextAt("/hook-kill"))
        yield* first.kill
        expect(yield* countAt("/hook-kill")).toBe(4)

        // The next process sends the ten once the lease of the four in flight ends (until then they fill the caps, 4 and 4).
        const second = yield* service
        const ids = new Set<string>()
        while (ids.size < 10) {
          const receipt = yield* second.whileUp(nextAt("/hook-kill"))
          if (receiver.all.filter((r) => r.path === "/hook-kill").indexOf(receipt) >= 4) ids.add(receipt.headers["webhook-id"]!)
        }
        expect([...ids].sort()).toEqual(emitted.map((e) => e.id).sort())
        // A pass writes its outcomes before the next claims: once a later event arrives, the ten are recorded.
        const [later] = yield* events.emit([{ accountId: a.id, type: "brand.ads_new", data: { n: 10 } }], new Date())
        while ((yield* second.whileUp(nextAt("/hook-kill"))).headers["webhook-id"] !== later!.id);
        const log = (yield* get(a.api_key, `/api/v1/webhooks/${id}/deliveries?page_size=100`)).json.data
          .filter((d: { event_id: string }) => d.event_id !== later!.id)
        expect(log.map((d: { status: string }) => d.status)).toEqual(Array(10).fill("delivered"))
        expect(log.map((d: { attempts: number }) => d.attempts).sort()).toEqual([1, 1, 1, 1, 1, 1, 2, 2, 2, 2])
      }), 180_000)
  })
})
