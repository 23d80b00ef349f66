import { createHash, randomBytes } from "node:crypto"
import { Data, Duration, Effect, Option } from "effect"
import { type AccountRow, AccountsRepo } from "../accounts/AccountsRepo.js"
import { Accounts, accountView } from "../accounts/Accounts.js"
import * as Password from "../accounts/Password.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { InvalidRequest } from "../../kernel/Errors.js"
import { addDays, dayMillis, dayOf, now, startOf } from "../../kernel/UtcDay.js"
import { type CallerInfo, PlanRequired } from "../gateway/Api.js"
import { creditBalance, scriptResetsAt, startOfNextUtcDay } from "../gateway/Meters.js"
import { type LogsQuery, type LogsResponse, maxLogOffset, type UsageResponse } from "./Api.js"
import { type LogFilter, SessionsRepo } from "./SessionsRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** Wrong e-mail or password: one answer for both, so the page does not reveal which accounts exist. */
export class BadCredentials extends Data.TaggedError("BadCredentials") {}

/** Too many failed sign-ins for this account or this address. */
export class SignInLocked extends Data.TaggedError("SignInLocked")<{ readonly retryAfterSeconds: number }> {}

/** A live session, as its cookie names it. */
export interface SignedIn {
  readonly token: string
  readonly expiresAt: Date
}

export interface DayCount {
  readonly day: string
  readonly calls: number
  readonly refunded: number
}

/** Everything the API-key page shows. */
export interface KeyPageData {
  readonly email: string
  readonly apiKey: string
  readonly apiAccess: boolean
  readonly caller: CallerInfo
  readonly periodEnd: Date
  /** The last 30 UTC days, oldest first. */
  readonly days: ReadonlyArray<DayCount>
  readonly notice: Option.Option<string>
}

const sessionDigest = (token: string) => createHash("sha256").update(token).digest()

/** Every day from `first` to `last`, with the counts found (zero days included). */
const everyDay = (first: Date, last: Date, found: ReadonlyArray<DayCount>): Array<DayCount> => {
  const byDay = new Map(found.map((d) => [d.day, d]))
  const days: Array<DayCount> = []
  for (let at = startOf(dayOf(first.getTime())); at <= last.getTime(); at += dayMillis) {
    const name = dayOf(at)
    days.push(byDay.get(name) ?? { day: name, calls: 0, refunded: 0 })
  }
  return days
}

const callerOf = (row: AccountRow, now: Date): CallerInfo => ({
  accountId: row.id,
  plan: row.plan,
  credits: creditBalance(row.used, row.monthly_limit, row.addon_remaining),
  dailySearch: { used: row.search_used, limit: row.daily_search_limit, resetsAt: startOfNextUtcDay(now) },
  scripts: { used: row.script_used, limit: row.script_generation_limit, resetsAt: scriptResetsAt(row.script_period_start) },
  chargeId: null
})

/** Live sessions an account may hold (browsers, devices); signing in again ends the oldest. */
export const maxSessionsPerAccount = 20

/** The notice a regenerated key leaves for the key page. */
export const keyRegeneratedNotice = "key-regenerated"

/**
 * Browser sessions (spec: Session helpers; INTERPRETATIONS S1, S2): sign-in with throttling,
 * the session as a caller, the key page's data, key regeneration, usage and logs.
 */
export class Sessions extends Effect.Service<Sessions>()("adintel/Sessions", {
  effect: Effect.gen(function*() {
    const repo = yield* SessionsRepo
    const accountsRepo = yield* AccountsRepo
    const accounts = yield* Accounts
    const config = yield* AppConfig
    const idleSince = (at: Date) => new Date(at.getTime() - Duration.toMillis(config.sessionIdleTimeout))
    const passwordCost = yield* Effect.orDie(Password.configuredCost)
    // Compared against when an e-mail has no account, so both answers take as long.
    const decoyHash = yield* Password.hash(randomBytes(16).toString("hex"), passwordCost)
    // A hash takes 128 MiB and most of a core for a quarter of a second: two at a time, whatever
    // the number of sign-ins in flight (issue 28).
    const hashing = yield* Effect.makeSemaphore(2)

    const account = (accountId: AccountId, at: Date) =>
      Effect.flatMap(accountsRepo.find(accountId, at), Option.match({
        // A session outlives no account: deleting one cascades to its sessions.
        onNone: () => Effect.dieMessage(`Session of a missing account ${accountId}`),
        onSome: Effect.succeed
      }))

    const lockedFor = (subjects: ReadonlyArray<readonly ["account" | "address", string]>, at: Date) =>
      Effect.map(
        Effect.forEach(subjects, ([kind, subject]) => repo.lockedUntil(kind, subject, at)),
        (locks) => Option.reduceCompact(locks, 0, (max, until) => Math.max(max, Math.ceil((until.getTime() - at.getTime()) / 1000)))
      )

    return {
      /**
       * Signs in with e-mail and password from `address`. Locked subjects are refused before
       * the password is even checked; a failure counts against the account and the address.
       */
      signIn: Effect.fn("Sessions.signIn", serviceSpan)(function*(input: { readonly email: string; readonly password: string; readonly address: string }) {
        const at = yield* now
        const subjects = [["account", input.email.trim().toLowerCase()], ["address", input.address]] as const
        const retryAfter = yield* lockedFor(subjects, at)
        if (retryAfter > 0) return yield* Effect.fail(new SignInLocked({ retryAfterSeconds: retryAfter }))
        const found = yield* repo.credentialsOf(input.email.trim())
        const stored = Option.flatMap(found, (row) => Option.fromNullable(row.password_hash))
        const valid = yield* hashing.withPermits(1)(Password.verify(input.password, Option.getOrElse(stored, () => decoyHash)))
        if (!valid || Option.isNone(stored) || Option.isNone(found)) {
          const options = {
            windowStart: new Date(at.getTime() - Duration.toMillis(config.loginLockout)),
            max: config.loginMaxFailures,
            lockedUntil: new Date(at.getTime() + Duration.toMillis(config.loginLockout))
          }
          yield* Effect.forEach(subjects, ([kind, subject]) => repo.recordFailure(kind, subject, at, options), { discard: true })
          return yield* Effect.fail(new BadCredentials())
        }
        yield* repo.clearFailures("account", subjects[0][1])
        // A hash made at a lower cost is made again now that the password is at hand.
        if (Password.isWeak(stored.value, passwordCost)) {
          yield* repo.rehash(found.value.id, stored.value, yield* hashing.withPermits(1)(Password.hash(input.password, passwordCost)))
        }
        yield* repo.removeEnded(found.value.id, at, idleSince(at), maxSessionsPerAccount - 1)
        const token = randomBytes(32).toString("base64url")
        const expiresAt = new Date(at.getTime() + Duration.toMillis(config.sessionMaxAge))
        yield* repo.create({ idHash: sessionDigest(token), accountId: found.value.id, now: at, expiresAt })
        return { token, expiresAt } satisfies SignedIn
      }),

      /** The account a session cookie stands for, if the session is live; its idle clock restarts. */
      authenticate: Effect.fn("Sessions.authenticate", serviceSpan)((token: string) =>
        Effect.flatMap(now, (at) => repo.find(sessionDigest(token), at, idleSince(at)))),

      signOut: Effect.fn("Sessions.signOut", serviceSpan)((token: string) => repo.remove(sessionDigest(token))),

      /** The session's account as a caller: its meters as they stand, no charge (S4). */
      caller: Effect.fn("Sessions.caller", serviceSpan)((accountId: AccountId) => Effect.flatMap(now, (at) => Effect.map(account(accountId, at), (row) => callerOf(row, at)))),

      keyPage: Effect.fn("Sessions.keyPage", serviceSpan)(function*(accountId: AccountId, token: string) {
        const at = yield* now
        const row = yield* account(accountId, at)
        const since = new Date(startOf(addDays(dayOf(at.getTime()), -29)))
        const usage = yield* repo.usage(accountId, since)
        return {
          email: row.email,
          apiKey: yield* Effect.orDie(accounts.revealKey(accountId)),
          apiAccess: row.api_access,
          caller: callerOf(row, at),
          periodEnd: row.period_end,
          days: everyDay(since, at, usage.days),
          notice: yield* repo.takeNotice(sessionDigest(token))
        } satisfies KeyPageData
      }),

      /**
       * S2: Basic or higher; the old key is refused from the moment this returns. `address` is
       * the client's, recorded with the account's event (its owner is told where it came from).
       */
      regenerate: Effect.fn("Sessions.regenerate", serviceSpan)(function*(accountId: AccountId, token: Option.Option<string>, address: string) {
        const row = yield* account(accountId, yield* now)
        if (!row.api_access) return yield* Effect.fail(PlanRequired.forService(config.serviceName))
        const key = yield* Effect.orDie(accounts.regenerateKey(accountId, { via: "session", address }))
        if (Option.isSome(token)) yield* repo.setNotice(sessionDigest(token.value), keyRegeneratedNotice)
        return key
      }),

      usage: Effect.fn("Sessions.usage", serviceSpan)(function*(accountId: AccountId) {
        const at = yield* now
        const row = yield* account(accountId, at)
        const view = accountView(row, at)
        const usage = yield* repo.usage(accountId, row.period_start)
        return {
          success: true,
          plan: view.plan,
          credits: view.credits,
          period: { start: row.period_start.toISOString(), end: row.period_end.toISOString() },
          daily_search: view.daily_search,
          script_generations: view.script_generations,
          calls_per_day: everyDay(row.period_start, at, usage.days),
          calls_per_route: usage.routes
        } satisfies UsageResponse
      }),

      logs: Effect.fn("Sessions.logs", serviceSpan)(function*(accountId: AccountId, query: LogsQuery) {
        const page = query.page ?? 1
        const pageSize = query.page_size ?? 20
        const offset = (page - 1) * pageSize
        if (offset > maxLogOffset) {
          return yield* Effect.fail(
            new InvalidRequest({
              error: `page: at most ${Math.floor(maxLogOffset / pageSize) + 1} for page_size ${pageSize}; narrow the logs with from, to, route or status`
            })
          )
        }
        if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
          return yield* Effect.fail(new InvalidRequest({ error: "from: must not be after to" }))
        }
        const filter: LogFilter = {
          accountId,
          route: Option.map(Option.fromNullable(query.route), (route) =>
            route.endsWith("*") ? { prefix: route.slice(0, -1) } : { exact: route }),
          status: Option.fromNullable(query.status),
          from: Option.map(Option.fromNullable(query.from), (d) => new Date(startOf(d))),
          until: Option.map(Option.fromNullable(query.to), (d) => new Date(startOf(addDays(d, 1)))),
          limit: pageSize,
          offset
        }
        const { entries, total } = yield* repo.logs(filter)
        return { success: true, data: entries, total, page, page_size: pageSize } satisfies LogsResponse
      })
    }
  }),
  dependencies: [SessionsRepo.Default, AccountsRepo.Default, Accounts.Default]
}) {}
