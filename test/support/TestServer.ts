import { HttpServer } from "@effect/platform"
import { ConfigProvider, Context, Duration, Effect, Layer } from "effect"
import { Accounts } from "../../src/access/accounts/Accounts.js"
import type { CreateAccount, UpdateAccount } from "../../src/access/accounts/Api.js"
import { AppConfig, type AppSettings } from "../../src/platform/AppConfig.js"
import { Gateway } from "../../src/access/gateway/Gateway.js"
import { InFlight } from "../../src/access/gateway/InFlight.js"
import { TrendCounts } from "../../src/ads/trends/TrendCounts.js"
import * as Server from "../../src/app/Server.js"
import { Sessions } from "../../src/access/session/Sessions.js"
import { SearchQuota } from "../../src/shop/account/SearchQuota.js"
import { BrandTracker } from "../../src/ads/brands/BrandTracker.js"
import { AccountAlerts } from "../../src/notifications/alerts/AccountAlerts.js"
import { Digests } from "../../src/notifications/digest/Digests.js"
import { Inbox } from "../../src/notifications/inbox/Inbox.js"
import { Deliveries } from "../../src/notifications/webhooks/Deliveries.js"
import type { AccountId } from "../../src/kernel/Ids.js"

/** Where a test's server listens. */
export class TestServer extends Context.Tag("test/TestServer")<TestServer, { readonly url: string }>() {}

/**
 * Secrets a test run uses instead of generating files under `DATA_DIR`, and any other variables.
 * The notification jobs (webhook deliveries included) and the saved searches' prune pass at start only (TestClock.adjust
 * runs every pass a jump of months would contain); tests that need them set their own interval. Passwords are hashed at scrypt's
 * least cost (2^10 for 2^17): a test of the cost itself sets `PASSWORD_HASH_COST` back.
 */
export const testEnvironment = (env: Record<string, string> = {}) =>
  Layer.setConfigProvider(
    ConfigProvider.fromMap(new Map([
      ["KEY_ENCRYPTION_SECRET", "test-key-encryption-secret-0123456789"],
      ["PASSWORD_HASH_COST", "10"],
      ["DIGEST_CHECK_EVERY", "365 days"],
      ["NOTIFICATION_ALERTS_EVERY", "365 days"],
      ["WEBHOOK_POLL_EVERY", "365 days"],
      ["SAVED_SEARCH_PRUNE_EVERY", "365 days"],
      ...Object.entries(env)
    ]))
  )

const address = Layer.effect(
  TestServer,
  Effect.map(HttpServer.HttpServer, (server) => {
    const port = server.address._tag === "TcpAddress" ? server.address.port : 0
    return { url: `http://127.0.0.1:${port}` }
  })
)

export interface TestServerOptions extends Server.LayerOptions {
  readonly config?: Partial<AppSettings>
  /** Environment variables the server's layers read through `Config` (e.g. `MEDIA_FETCH_ALLOW`). */
  readonly env?: Record<string, string>
}

/**
 * The real service on a free loopback port, over whatever database the caller provides, with
 * `AppConfig` defaults replaced by `config`. Also gives the server's own `Accounts`, `Gateway`,
 * `SearchQuota` and `Sessions` services for set-up, its brand tracker, notification jobs, inbox and webhook deliveries.
 */
export const testServer = (options: TestServerOptions = {}) =>
  Layer.mergeAll(address, Accounts.Default, Gateway.Default, InFlight.Default, TrendCounts.Default, SearchQuota.Default, Sessions.Default, BrandTracker.Default, Digests.Default, AccountAlerts.Default, Inbox.Default, Deliveries.Default).pipe(
    Layer.provideMerge(Server.layer({ accessLog: false, ...options })),
    Layer.provide(AppConfig.layerWith({
      port: 0,
      host: "127.0.0.1",
      // TestClock.adjust runs every sweep (and heartbeat, rollup look) a jump of months would
      // contain; sweeper tests set their own. A sweep beats its own replica's heartbeat first.
      ledgerSweepEvery: Duration.days(365),
      replicaHeartbeatEvery: Duration.days(365),
      rollupRefreshEvery: Duration.days(365),
      ...options.config
    })),
    Layer.provide(testEnvironment(options.env))
  )

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

/** A plain `fetch`: tests compare exact bytes, status and headers. */
export const call = (path: string, init: RequestInit = {}) =>
  Effect.flatMap(TestServer, ({ url }) =>
    Effect.promise(async (): Promise<Answer> => {
      const response = await fetch(url + path, init)
      return { status: response.status, headers: response.headers, body: await response.text() }
    }))

/** A call with the account's key and an optional JSON body, its answer's body parsed as JSON too. */
export const sendJson = (key: string, method: string, path: string, body?: unknown) =>
  Effect.map(
    call(path, {
      method,
      headers: { "X-API-Key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }),
    (answer) => ({ ...answer, json: JSON.parse(answer.body) })
  )

/** An account made through the service, with its clear key, optionally patched. */
export const account = (input: Partial<CreateAccount> & { readonly patch?: UpdateAccount } = {}) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const created = yield* accounts.create({
      email: input.email ?? `user-${Math.random().toString(36).slice(2)}@example.com`,
      plan: input.plan ?? "basic",
      ...(input.password === undefined ? {} : { password: input.password })
    })
    if (input.patch) yield* accounts.update(created.id, input.patch)
    return created
  }).pipe(Effect.orDie)

/** The credits object of an account, read without charging. */
export const balanceOf = (id: AccountId) =>
  Effect.flatMap(Accounts, (accounts) => Effect.map(accounts.view(id), (view) => view.credits)).pipe(Effect.orDie)

export const keyHeader = (key: string) => ({ headers: { "X-API-Key": key } })

/** The Origin a browser sends with a form post from the test server's own pages. */
export const sameOrigin = Effect.map(TestServer, ({ url }) => ({ origin: url }))

/**
 * A browser session for an account with a password: the headers a browser sends from this
 * service's own pages, the session cookie and the Origin (S1 refuses state changes without it).
 */
export const signIn = (email: string, password: string) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const session = yield* Effect.orDie(sessions.signIn({ email, password, address: "test" }))
    const { origin } = yield* sameOrigin
    return { cookie: `adintel_session=${session.token}`, origin }
  })
