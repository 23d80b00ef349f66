import { Duration, Effect, Option } from "effect"
import { Accounts } from "../../access/accounts/Accounts.js"
import { BrandTracker, type Tracker } from "../../ads/brands/BrandTracker.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { Inbox } from "../inbox/Inbox.js"
import { Mailer } from "../mail/Mailer.js"
import { passes } from "../Passes.js"
import type { DigestPrefs } from "./Api.js"
import { defaultPrefs } from "./DigestPreferences.js"
import { digestCheckEvery } from "./DigestConfig.js"
import { type DigestState, DigestRepo } from "./DigestRepo.js"
import { dueSlot } from "./DigestSchedule.js"
import { type Digest, digestItems, digestMail } from "./DigestText.js"
import type { AccountId } from "../../kernel/Ids.js"
import { accountHash, serviceSpan } from "../../platform/telemetry/Tracing.js"
import { now } from "../../kernel/UtcDay.js"

/** Accounts read per page of a pass. */
const pageSize = 500
/** The newest ads a brand's item and e-mail quote. */
export const quotedAds = 3
/** Digest rows older than this are dropped as new ones are taken (only the latest is read). */
const keepDigests = Duration.toMillis(Duration.days(35))

const prefsOf = (state: DigestState | undefined): DigestPrefs =>
  state === undefined || state.frequency === null || state.email === null || state.hour_utc === null
    ? defaultPrefs
    : { frequency: state.frequency, email: state.email, hour_utc: state.hour_utc }

/**
 * The brand digest job (issue 19; W5, W6): for each account that tracks brands, at its
 * frequency and hour, one inbox item per brand with new ads since its previous digest, and the
 * e-mail when it asked for one and `SMTP_URL` is set. Every replica runs it; a digest is taken
 * under its unique (account, slot) row, so no digest is made or sent twice.
 */
export class Digests extends Effect.Service<Digests>()("adintel/Digests", {
  scoped: Effect.gen(function*() {
    const repo = yield* DigestRepo
    const brands = yield* BrandTracker
    const inbox = yield* Inbox
    const mailer = yield* Mailer
    const accounts = yield* Accounts
    const { serviceName } = yield* AppConfig

    /** At most once: the e-mail is taken from `pending` before it is sent; a failure is logged, not retried. */
    const email = (digest: Digest) =>
      Effect.gen(function*() {
        if (!(yield* repo.startEmail(digest.accountId, digest.until))) return
        const to = yield* Effect.map(accounts.view(digest.accountId), (view) => view.email)
        const sent = yield* Effect.either(mailer.send(digestMail(digest, to, serviceName)))
        yield* repo.finishEmail(digest.accountId, digest.until, sent._tag === "Right" ? "sent" : "failed")
        // The account by its hash and the failure by its code: addresses and ids stay out of telemetry.
        if (sent._tag === "Left") {
          yield* Effect.logWarning("Digest e-mail not sent").pipe(
            Effect.annotateLogs({ "adintel.account": accountHash(digest.accountId), "adintel.mail.failure": sent.left.reason })
          )
        }
      })

    /** Takes the account's digest of `slot`, unless another replica did; true when this one did. */
    const take = (accountId: AccountId, prefs: DigestPrefs, since: Date | null, slot: Date, now: Date) =>
      Effect.gen(function*() {
        const taken = yield* repo.atomically(
          Effect.gen(function*() {
            if (!(yield* repo.claim(accountId, slot, now, new Date(slot.getTime() - keepDigests)))) return Option.none()
            const news = yield* brands.news(accountId, since, slot, quotedAds)
            const digest: Digest = { accountId, frequency: prefs.frequency === "weekly" ? "weekly" : "daily", since, until: slot, news }
            yield* inbox.deliver(digestItems(digest, now))
            const mailed = prefs.email && mailer.enabled && news.length > 0
            yield* repo.record(accountId, slot, {
              brands: news.length,
              ads: news.reduce((n, brand) => n + brand.count, 0),
              email: mailed ? "pending" : "none"
            })
            return Option.some({ digest, mailed })
          })
        )
        if (Option.isSome(taken) && taken.value.mailed) yield* email(taken.value.digest)
        return Option.isSome(taken)
      })

    /** One look at every tracking account: the digests due at `now` are taken. How many this replica took. */
    const pass = (now: Date) =>
      Effect.gen(function*() {
        let taken = 0
        let after: AccountId | null = null
        for (;;) {
          const trackers: ReadonlyArray<Tracker> = yield* brands.trackers(after, pageSize)
          if (trackers.length === 0) break
          const states = new Map((yield* repo.states(trackers.map((t) => t.account_id))).map((s) => [s.account_id, s]))
          for (const tracker of trackers) {
            const state = states.get(tracker.account_id)
            const prefs = prefsOf(state)
            const previous = state?.last_slot ?? null
            const slot = dueSlot(prefs, now, previous, tracker.first_followed_at)
            if (slot === null) continue
            // One account's failure is logged and retried at the next pass; the others go on.
            const took = yield* take(tracker.account_id, prefs, previous, slot, now).pipe(
              Effect.catchAllCause((cause) =>
                Effect.as(Effect.logError("Digest failed", cause).pipe(Effect.annotateLogs("adintel.account", accountHash(tracker.account_id))), false))
            )
            if (took) taken++
          }
          if (trackers.length < pageSize) break
          after = trackers[trackers.length - 1]!.account_id
        }
        return taken
      })

    const job = yield* passes("Digest pass", yield* digestCheckEvery, pass)

    return {
      /** One pass at the clock's instant; how many digests this replica took. */
      pass: Effect.withSpan(Effect.flatMap(now, pass), "Digests.pass", serviceSpan),
      /** The instants of the passes finished from now on, while the scope lasts. */
      passes: job.subscribe,
      /** The job, for a layer to fork: a pass at start, then one every `DIGEST_CHECK_EVERY` (on the hour by default). */
      run: job.run
    }
  }),
  dependencies: [DigestRepo.Default, BrandTracker.Default, Inbox.Default, Mailer.Default, Accounts.Default]
}) {}
