import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { AccountEvents, type KeyOrigin } from "../events/AccountEvents.js"
import { Conflict, NotFound } from "../../kernel/Errors.js"
import { AccountId } from "../../kernel/Ids.js"
import * as ApiKey from "../gateway/ApiKey.js"
import { KeySealer } from "../gateway/KeySealer.js"
import { creditBalance, scriptResetsAt, searchesLeft, startOfNextUtcDay } from "../gateway/Meters.js"
import type { AccountView, CreateAccount, CreatedAccount, UpdateAccount } from "./Api.js"
import { type AccountRow, AccountsRepo } from "./AccountsRepo.js"
import * as Password from "./Password.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { now } from "../../kernel/UtcDay.js"

const accountNotFound = new NotFound({ error: "Account not found" })

/** An id given from outside (an admin path, a CLI argument): a malformed one names no account. */
const idOf = (ref: string): Effect.Effect<AccountId, NotFound> =>
  Option.match(Schema.decodeUnknownOption(AccountId)(ref), { onNone: () => Effect.fail(accountNotFound), onSome: Effect.succeed })

/** An account and its meters as the admin API, the CLI and the usage page show them. */
export const accountView = (row: AccountRow, now: Date): AccountView => ({
  id: row.id,
  email: row.email,
  plan: row.plan,
  credits: creditBalance(row.used, row.monthly_limit, row.addon_remaining),
  daily_search: {
    used: row.search_used,
    limit: row.daily_search_limit,
    remaining: searchesLeft(row.search_used, row.daily_search_limit),
    unlimited: row.daily_search_limit === null,
    resets_at: startOfNextUtcDay(now).toISOString()
  },
  script_generations: {
    used: row.script_used,
    limit: row.script_generation_limit,
    remaining: Math.max(0, row.script_generation_limit - row.script_used),
    resets_at: scriptResetsAt(row.script_period_start)?.toISOString() ?? null
  }
})

/** Accounts and their keys: what the admin API, the CLI and the demo set-up share. */
export class Accounts extends Effect.Service<Accounts>()("adintel/Accounts", {
  effect: Effect.gen(function*() {
    const repo = yield* AccountsRepo
    const sealer = yield* KeySealer
    const events = yield* AccountEvents
    const sql = yield* SqlClient.SqlClient
    const passwordCost = yield* Effect.orDie(Password.configuredCost)

    const view = (id: AccountId) =>
      Effect.gen(function*() {
        const at = yield* now
        const row = yield* repo.find(id, at)
        if (Option.isNone(row)) return yield* Effect.fail(accountNotFound)
        return accountView(row.value, at)
      })

    const mustExist = (found: boolean) => (found ? Effect.void : Effect.fail(accountNotFound))

    return {
      idOf: Effect.fn("Accounts.idOf", serviceSpan)(idOf),

      view: Effect.fn("Accounts.view", serviceSpan)(view),

      create: Effect.fn("Accounts.create", serviceSpan)(function*(input: CreateAccount) {
        const key = ApiKey.generate()
        const id = yield* repo.insert({
          email: input.email,
          passwordHash: input.password === undefined ? null : yield* Password.hash(input.password, passwordCost),
          plan: input.plan,
          keyHash: ApiKey.digest(key),
          keySealed: sealer.seal(key),
          now: yield* now
        })
        if (Option.isNone(id)) {
          return yield* Effect.fail(new Conflict({ error: "An account with this email already exists" }))
        }
        return { id: id.value, email: input.email, plan: input.plan, api_key: key } satisfies CreatedAccount
      }),

      update: Effect.fn("Accounts.update", serviceSpan)(function*(id: AccountId, patch: UpdateAccount) {
        yield* view(id)
        yield* Effect.flatMap(repo.update(id, patch, yield* now), mustExist)
        return yield* view(id)
      }),

      addAddonCredits: Effect.fn("Accounts.addAddonCredits", serviceSpan)(function*(id: AccountId, amount: number) {
        yield* view(id)
        yield* Effect.flatMap(repo.addAddon(id, amount), mustExist)
        return (yield* view(id)).credits
      }),

      /**
       * A new key; the previous one is refused from the moment this returns, by every replica.
       * The account's event (when, and from where) is recorded in the same transaction, so its
       * owner hears of every regeneration and of none that did not happen (issue 19).
       */
      regenerateKey: Effect.fn("Accounts.regenerateKey", serviceSpan)(function*(id: AccountId, origin: KeyOrigin = { via: "operator", address: null }) {
        yield* view(id)
        const key = ApiKey.generate()
        const at = yield* now
        yield* sql.withTransaction(
          Effect.flatMap(repo.replaceKey(id, ApiKey.digest(key), sealer.seal(key), at), (found) =>
            found ? Effect.as(events.keyRegenerated(id, origin, at), true) : Effect.succeed(false))
        ).pipe(Effect.orDie, Effect.flatMap(mustExist))
        return key
      }),

      /** Sets the password of the browser session; signed-in browsers must sign in again. */
      setPassword: Effect.fn("Accounts.setPassword", serviceSpan)(function*(id: AccountId, password: string) {
        yield* view(id)
        yield* Effect.flatMap(repo.setPassword(id, yield* Password.hash(password, passwordCost)), mustExist)
      }),

      /** The live key in clear, for its owner's key page. */
      revealKey: Effect.fn("Accounts.revealKey", serviceSpan)(function*(id: AccountId) {
        yield* view(id)
        const sealed = yield* repo.liveKey(id)
        if (Option.isNone(sealed)) return yield* Effect.fail(accountNotFound)
        return yield* sealer.open(sealed.value)
      }),

      /** An account id from an id or an e-mail address (the CLI accepts either). */
      resolve: Effect.fn("Accounts.resolve", serviceSpan)((ref: string): Effect.Effect<AccountId, NotFound> =>
        ref.includes("@")
          ? Effect.flatMap(repo.findIdByEmail(ref), Option.match({ onNone: () => Effect.fail(accountNotFound), onSome: Effect.succeed }))
          : Effect.flatMap(idOf(ref), (id) => Effect.as(view(id), id)))
    }
  }),
  dependencies: [AccountsRepo.Default, KeySealer.Default, AccountEvents.Default]
}) {}
