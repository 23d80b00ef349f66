import { SqlClient } from "@effect/sql"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Context, Effect, Layer } from "effect"
import type { AccountId } from "../../src/kernel/Ids.js"
import { account, call, keyHeader, signIn } from "./TestServer.js"

/** What the transcript tests share: a media origin, a signed-in account, calls and meters. */

/** The media origin: on 127.0.0.2, the one address the test server may fetch from (MEDIA_FETCH_ALLOW). */
export class MediaOrigin extends Context.Tag("test/MediaOrigin")<MediaOrigin, { readonly base: string; readonly hits: Array<string> }>() {}

/** Serves `files` by path; `/to-metadata` redirects to the cloud metadata address. */
export const mediaOrigin = (files: Readonly<Record<string, string | Uint8Array>>) =>
  Layer.scoped(
    MediaOrigin,
    Effect.acquireRelease(
      Effect.async<{ readonly base: string; readonly hits: Array<string>; readonly server: http.Server }>((resume) => {
        const hits: Array<string> = []
        const server = http.createServer((req, res) => {
          hits.push(req.url ?? "")
          if (req.url === "/to-metadata") return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end()
          const body = files[req.url ?? ""]
          if (body === undefined) return res.writeHead(404).end()
          res.writeHead(200, { "content-type": "video/mp4" }).end(body)
        })
        server.listen(0, "127.0.0.2", () => resume(Effect.succeed({ base: `http://127.0.0.2:${(server.address() as AddressInfo).port}`, hits, server })))
      }),
      ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
    )
  )

type Auth = Record<string, string>
export const parsed = (answer: { status: number; body: string }) => ({ status: answer.status, body: answer.body, json: JSON.parse(answer.body) })
export const post = (path: string, auth: Auth, body: unknown) =>
  Effect.map(
    call(path, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) }),
    parsed
  )
export const get = (path: string, auth: Auth) => Effect.map(call(path, { headers: auth }), parsed)

/** A Basic account with a password, its key, and a signed-in browser (cookie and Origin). */
export const signedInAccount = (patch: { readonly script_generation_limit?: number; readonly plan?: "free" | "basic" } = {}) =>
  Effect.gen(function*() {
    const password = "correct horse battery staple"
    const created = yield* account({
      plan: patch.plan ?? "basic",
      password,
      ...(patch.script_generation_limit === undefined ? {} : { patch: { script_generation_limit: patch.script_generation_limit } })
    })
    const browser = yield* signIn(created.email, password)
    const key = keyHeader(created.api_key).headers
    return { ...created, key, both: { ...key, cookie: browser.cookie }, browser: { cookie: browser.cookie, origin: browser.origin } }
  })

/** Script generations used this period, as the account's meters hold them. */
export const scriptsUsed = (accountId: AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ script_used: number }>`select script_used from account_meters where account_id = ${accountId}::uuid`).pipe(
    Effect.map((rows) => rows[0]!.script_used),
    Effect.orDie
  )

export const uniqueId = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`
