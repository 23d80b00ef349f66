import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Context, Effect, Layer, Queue } from "effect"
import * as http from "node:http"
import { Webhook } from "standardwebhooks"
import { vi } from "vitest"
import { AccountEvents } from "../../src/access/events/AccountEvents.js"
import type { AccountId } from "../../src/kernel/Ids.js"
import { clientOn, TestDatabaseUrlLive } from "./TestDatabase.js"
import { balanceOf, call, keyHeader, TestServer, testServer } from "./TestServer.js"

/**
 * Webhooks (issue 32; INTERPRETATIONS H2, H3) against a real receiver: an HTTP server on
 * 127.0.0.1 that each file starts, reached with `WEBHOOK_ALLOW_LOOPBACK=true`. Signatures are
 * checked with the `standardwebhooks` package, never our own code. The world's replica polls
 * once a year, so a test sends its passes by hand (`Deliveries.pass`) after moving the
 * TestClock; tests of the polling loop build their own replica that polls every 2 s.
 */

export interface Receipt {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
}
export type Answer = "ok" | "error" | "hang" | "hold" | "redirect" | "huge"

/**
 * The receiver: every request recorded; each path answers its script in turn, then 200. A
 * "hold" is answered 200 by `release`; `open` counts the requests not yet answered per path,
 * and `peaks` keeps those counts as each request arrived.
 */
export class Receiver extends Context.Tag("test/Receiver")<Receiver, {
  readonly url: string
  readonly received: Queue.Queue<Receipt>
  readonly all: Array<Receipt>
  readonly script: Map<string, Array<Answer>>
  readonly open: Map<string, number>
  readonly peaks: Array<ReadonlyMap<string, number>>
  readonly release: Effect.Effect<void>
}>() {}

export const ReceiverLive = Layer.scoped(
  Receiver,
  Effect.gen(function*() {
    const received = yield* Queue.unbounded<Receipt>()
    const all: Array<Receipt> = []
    const script = new Map<string, Array<Answer>>()
    const hanging = new Set<http.ServerResponse>()
    const held = new Set<http.ServerResponse>()
    const open = new Map<string, number>()
    const peaks: Array<ReadonlyMap<string, number>> = []
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const path = req.url ?? "/"
        open.set(path, (open.get(path) ?? 0) + 1)
        peaks.push(new Map(open))
        res.once("close", () => {
          open.set(path, open.get(path)! - 1)
          held.delete(res)
        })
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
        const receipt = { path, headers, body: Buffer.concat(chunks).toString("utf8") }
        all.push(receipt)
        const answer = script.get(path)?.shift() ?? "ok"
        if (answer === "hang") hanging.add(res)
        else if (answer === "hold") held.add(res)
        else if (answer === "redirect") res.writeHead(302, { location: `${path}-redirected` }).end()
        // 4 MB: more than anyone reads of an answer.
        else if (answer === "huge") res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(4 * 1024 * 1024))
        else res.writeHead(answer === "ok" ? 200 : 500, { "content-type": "text/plain" }).end(answer)
        Queue.unsafeOffer(received, receipt)
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () => Effect.sync(() => {
        for (const res of [...hanging, ...held]) res.destroy()
        server.closeAllConnections()
        server.close()
      })
    )
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const release = Effect.sync(() => {
      for (const res of held) res.writeHead(200, { "content-type": "text/plain" }).end("ok")
      held.clear()
    })
    return { url: `http://127.0.0.1:${port}`, received, all, script, open, peaks, release }
  })
)

export const loopbackOn = { WEBHOOK_ALLOW_LOOPBACK: "true" }
/** A replica on the file's database: the whole service, its own pool, `env` for its settings. */
export const replica = (env: Record<string, string>) =>
  Layer.mergeAll(testServer({ env }), AccountEvents.Default).pipe(Layer.provideMerge(clientOn))
export const world = replica(loopbackOn).pipe(Layer.provideMerge(Layer.mergeAll(TestDatabaseUrlLive, ReceiverLive)))

export const answerOf = (answer: { status: number; body: string }) => ({ ...answer, json: JSON.parse(answer.body) })
export const send = (key: string, method: string, path: string, body?: unknown, server?: string) =>
  Effect.flatMap(server === undefined ? Effect.map(TestServer, ({ url }) => url) : Effect.succeed(server), (base) =>
    Effect.promise(async () => {
      const response = await fetch(base + path, {
        method,
        headers: { "X-API-Key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return answerOf({ status: response.status, body: await response.text() })
    }))
export const get = (key: string, path: string) => Effect.map(call(path, keyHeader(key)), answerOf)
export const error = (message: string) => JSON.stringify({ success: false, error: message })

/** Each test starts with no endpoint (their deliveries go with them). */
export const fresh = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from webhook_endpoints`).pipe(Effect.orDie)

export const register = (key: string, path: string, events: ReadonlyArray<string> = ["webhook.test"], server?: string) =>
  Effect.gen(function*() {
    const { url } = yield* Receiver
    const created = yield* send(key, "POST", "/api/v1/webhooks", { url: url + path, events }, server)
    expect(created.status, created.body).toBe(200)
    return { id: created.json.webhook.id as string, secret: created.json.secret as string, created }
  })

/** The next request the receiver got on `path` (or one of `path`; others are skipped: they belong to no test that waits). */
export const nextAt = (path: string | ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { received } = yield* Receiver
    for (;;) {
      const receipt = yield* Queue.take(received)
      if (typeof path === "string" ? receipt.path === path : path.includes(receipt.path)) return receipt
    }
  })
export const countAt = (path: string) => Effect.map(Receiver, ({ all }) => all.filter((r) => r.path === path).length)

/** Verifies a receipt with `standardwebhooks`, as a receiver would when it arrives (its clock at the stamp). */
export const verify = (secret: string, receipt: Receipt) => {
  vi.useFakeTimers({ toFake: ["Date"] })
  vi.setSystemTime(Number(receipt.headers["webhook-timestamp"]) * 1000)
  try {
    return new Webhook(secret).verify(receipt.body, receipt.headers)
  } finally {
    vi.useRealTimers()
  }
}
export const verifies = (secret: string, receipt: Receipt) => {
  try {
    verify(secret, receipt)
    return true
  } catch {
    return false
  }
}

export const deliveriesOf = (key: string, id: string) => Effect.map(get(key, `/api/v1/webhooks/${id}/deliveries`), (answer) => answer.json.data)
export const usedOf = (id: AccountId) => Effect.map(balanceOf(id), (credits) => credits.used)
export const stamp = (receipt: Receipt) => Number(receipt.headers["webhook-timestamp"])
