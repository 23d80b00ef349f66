import { Clock, Effect, Option } from "effect"
import type { DigestPrefs as Prefs, DigestPrefsUpdate } from "./Api.js"
import { DigestRepo } from "./DigestRepo.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/** An account that never chose: a daily digest at 08:00 UTC, with e-mail. */
export const defaultPrefs: Prefs = { frequency: "daily", email: true, hour_utc: 8 }

/** W6: the account's digest preferences. */
export class DigestPreferences extends Effect.Service<DigestPreferences>()("adintel/DigestPreferences", {
  effect: Effect.gen(function*() {
    const repo = yield* DigestRepo
    const get = (account: AccountId): Effect.Effect<Prefs> => Effect.map(repo.prefs(account), Option.getOrElse(() => defaultPrefs))
    return {
      get: Effect.fn("DigestPreferences.get", serviceSpan)(get),
      /** These accounts' preferences (the default for one that never chose), in one read. */
      many: Effect.fn("DigestPreferences.many", serviceSpan)((accounts: ReadonlyArray<AccountId>): Effect.Effect<ReadonlyMap<AccountId, Prefs>> =>
        Effect.map(repo.prefsOfAccounts(accounts), (saved) => new Map(accounts.map((account) => [account, saved.get(account) ?? defaultPrefs])))),
      /** Changes the fields sent, keeps the others; the preferences afterwards. */
      update: Effect.fn("DigestPreferences.update", serviceSpan)(function*(account: AccountId, patch: DigestPrefsUpdate): Effect.fn.Return<Prefs> {
        const current = yield* get(account)
        const next: Prefs = {
          frequency: patch.frequency ?? current.frequency,
          email: patch.email ?? current.email,
          hour_utc: patch.hour_utc ?? current.hour_utc
        }
        yield* repo.savePrefs(account, next, new Date(yield* Clock.currentTimeMillis))
        return next
      })
    }
  }),
  dependencies: [DigestRepo.Default]
}) {}
