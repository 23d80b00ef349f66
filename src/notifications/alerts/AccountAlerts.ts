import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Schema } from "effect"
import { type AccountEvent, AccountEvents, type CreditUsage, type EventPosition } from "../../access/events/AccountEvents.js"
import { MatchesNewData, type SearchMatches, searchesTold } from "../../ads/savedSearches/Api.js"
import { SavedSearches } from "../../ads/savedSearches/SavedSearches.js"
import { maxAdIdsPerEvent } from "../../access/events/OutboxEvent.js"
import { DigestPreferences } from "../digest/DigestPreferences.js"
import type { DigestPrefs } from "../digest/Api.js"
import { nextSlot } from "../digest/DigestSchedule.js"
import { DigestQueueRepo, type QueuedSearch } from "./DigestQueueRepo.js"
import { type Delivery, Inbox } from "../inbox/Inbox.js"
import { passes } from "../Passes.js"
import { alertsEvery } from "./AlertsConfig.js"
import type { AccountId } from "../../kernel/Ids.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"
import { now } from "../../kernel/UtcDay.js"

/** The thresholds of monthly credits used that the owner hears of, once per period each. */
export const creditThresholds = [80, 100] as const
/** Events this old are looked at again by every pass (delivered ones are skipped by their key). */
const eventLookback = Duration.toMillis(Duration.days(7))
const pageSize = 500

const instant = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`
const day = (at: Date) => at.toISOString().slice(0, 10)

/** W5: "the API key regenerated", with when and from where; dated when it happened. */
export const keyRegeneratedItem = (event: AccountEvent): Delivery => {
  const where = event.data.via === "session"
    ? `from ${event.data.address ?? "an unknown address"}`
    : "by an operator (admin API or command line)"
  return {
    accountId: event.account_id,
    type: "api_key_regenerated",
    title: "Your API key was regenerated",
    body: `A new API key was created on ${instant(event.occurred_at)} ${where}; the previous key stopped working at once. ` +
      "If this was not you, sign in, regenerate the key and change your password.",
    data: { at: event.occurred_at.toISOString(), address: event.data.address, via: event.data.via },
    createdAt: event.occurred_at,
    key: `api_key_regenerated:${event.id}`
  }
}

/** W5: monthly credits crossing 80 % and 100 %, once per period (the key names the period). */
export const creditsItem = (usage: CreditUsage, percent: (typeof creditThresholds)[number], createdAt: Date): Delivery => ({
  accountId: usage.account_id,
  type: "credits_used",
  title: percent === 100 ? "Your monthly API credits are used up" : `${percent} % of your monthly API credits used`,
  body: percent === 100
    ? `All ${usage.monthly_limit} monthly API credits of the period that started ${day(usage.period_start)} are used: ` +
      "calls now spend add-on credits, and are refused when none are left, until the next period."
    : `You have used ${usage.used} of your ${usage.monthly_limit} monthly API credits in the period that started ${day(usage.period_start)}.`,
  data: { percent, used: usage.used, limit: usage.monthly_limit, period_start: usage.period_start.toISOString() },
  createdAt,
  key: `credits_used:${percent}:${usage.period_start.toISOString()}`
})

/** The searches a `saved_search.matches_new` event tells of (either shape it has had); none when its data is not one. */
const searchesOf = (data: unknown): ReadonlyArray<SearchMatches> =>
  Option.match(Schema.decodeUnknownOption(MatchesNewData)(data), { onNone: () => [], onSome: searchesTold })

/**
 * Matches events older than this are not queued when first read (a reader's first pass over an
 * outbox that has a past): a weekly digest's week, and a week more for passes missed.
 */
const matchesLookback = Duration.toMillis(Duration.days(14))
/** Where the saved-search digest reads the outbox. */
const digestCursor = "saved_search_digest"
/** Due (account, search, slot) groups told per transaction. */
const groupsPerPass = 200

/** The slot that tells what happened at `at`, for these preferences (none: digests off, or no preferences). */
const slotOf = (prefs: DigestPrefs | undefined, at: Date) => prefs === undefined ? null : nextSlot(prefs, at)

/** A saved search's new matches told in one digest slot: the events of the slot, oldest first. */
export interface SlotMatches {
  readonly accountId: AccountId
  readonly name: string
  readonly frequency: "daily" | "weekly"
  readonly slot: Date
  readonly events: ReadonlyArray<{ readonly id: string; readonly data: SearchMatches }>
}

/**
 * W5, W6: a saved search's new matches of one digest slot (the day or week before it, per the
 * account's digest preferences) as one item, dated at the slot; its key is the search and the
 * slot, so it is delivered once. The newest 100 ads of its events, newest first.
 */
export const savedSearchItem = (matches: SlotMatches): Delivery => {
  const first = matches.events[0]!.data
  const count = matches.events.reduce((n, event) => n + event.data.count, 0)
  const adIds = [...new Set([...matches.events].reverse().flatMap((event) => event.data.ad_ids))].slice(0, maxAdIdsPerEvent)
  const period = matches.frequency === "weekly" ? "week" : "day"
  return {
    accountId: matches.accountId,
    type: "saved_search_matches",
    title: `${matches.name}: ${count} new ${count === 1 ? "match" : "matches"}`,
    body: `In the ${period} to ${instant(matches.slot)}, imports found ${count} new ${count === 1 ? "ad" : "ads"} matching your saved search "${matches.name}" (${first.library} library).`,
    data: {
      saved_search: { id: first.saved_search_id, name: matches.name },
      library: first.library,
      count,
      ad_ids: adIds,
      event_ids: matches.events.map((event) => event.id)
    },
    createdAt: matches.slot,
    key: `saved_search_matches:${first.saved_search_id}:${matches.slot.toISOString()}`
  }
}

/**
 * Turns what access records (key regenerations) and the state of the credit meters into inbox
 * items (issue 19, "Other sources"). Access never calls up here: every replica looks on its own
 * schedule, and an item already delivered (by its key) is not delivered again. The metered path
 * pays nothing for it.
 */
export class AccountAlerts extends Effect.Service<AccountAlerts>()("adintel/AccountAlerts", {
  scoped: Effect.gen(function*() {
    const events = yield* AccountEvents
    const inbox = yield* Inbox
    const sql = yield* SqlClient.SqlClient
    const every = yield* alertsEvery
    const savedSearches = yield* SavedSearches
    const prefs = yield* DigestPreferences
    const queue = yield* DigestQueueRepo

    /**
     * Saved searches' new matches (H1) as inbox items per the digest preferences (W6): an event
     * is told in the account's first digest slot after it, once that slot has come, with the
     * search's other events of the slot; nothing when digests are off. Each event is read once,
     * in commit order after the reader's cursor, and queued under its slot once per search it
     * names (one since issue 44 names each search of the account that matched); a pass then tells
     * the groups whose slot has come and takes them out of the queue. Both steps hold the
     * cursor's row, so replicas take turns and a group is told whole.
     */
    const queueMatches = (now: Date) =>
      sql.withTransaction(Effect.gen(function*() {
        const position = yield* queue.lockCursor(digestCursor)
        const page = yield* events.eventsOfType("saved_search.matches_new", new Date(now.getTime() - matchesLookback), position, pageSize)
        const accountPrefs = yield* prefs.many([...new Set(page.map((e) => e.account_id))])
        yield* queue.enqueue(page.flatMap((event) => {
          // Only events whose data is what the matching pass records name searches (an event's data is stored as given).
          const slot = slotOf(accountPrefs.get(event.account_id), event.created_at)
          return slot === null
            ? []
            : searchesOf(event.data).map((search) => ({ seq: event.seq, accountId: event.account_id, savedSearchId: search.saved_search_id, slot }))
        }))
        const last = page[page.length - 1]
        if (last !== undefined) yield* queue.moveCursor(digestCursor, { xid: last.xid, seq: last.seq })
        return page.length
      })).pipe(Effect.orDie)

    /**
     * Tells the queue's first due groups; how many groups it read. The slot is worked out again
     * from the preferences of now: digests turned off drop the events, a later slot moves them.
     */
    const tellMatches = (now: Date) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* queue.lockCursor(digestCursor)
        const due = yield* queue.due(now, groupsPerPass)
        const accountPrefs = yield* prefs.many([...new Set(due.map((e) => e.account_id))])
        // A search deleted before its slot's item gets none.
        const names = yield* savedSearches.namesOf([...new Set(due.map((e) => e.saved_search_id))])
        const groups = new Map<string, { readonly key: Omit<SlotMatches, "name" | "events">; readonly name: string; readonly events: Array<SlotMatches["events"][number]> }>()
        const later: Array<QueuedSearch & { readonly slot: Date }> = []
        const done: Array<QueuedSearch> = []
        for (const event of due) {
          const chosen = accountPrefs.get(event.account_id)
          const slot = slotOf(chosen, event.created_at)
          const queued = { seq: event.seq, savedSearchId: event.saved_search_id }
          if (chosen !== undefined && chosen.frequency !== "off" && slot !== null && slot > now) {
            later.push({ ...queued, slot })
            continue
          }
          done.push(queued)
          const data = searchesOf(event.data).find((search) => search.saved_search_id === event.saved_search_id)
          const name = names.get(event.saved_search_id)
          if (chosen === undefined || chosen.frequency === "off" || slot === null || data === undefined || name === undefined) continue
          const id = `${event.account_id}/${event.saved_search_id}/${slot.toISOString()}`
          const group = groups.get(id) ?? { key: { accountId: event.account_id, frequency: chosen.frequency, slot }, name, events: [] }
          group.events.push({ id: event.id, data })
          groups.set(id, group)
        }
        const delivered = yield* inbox.deliver([...groups.values()].map((group) => savedSearchItem({ ...group.key, name: group.name, events: group.events })))
        yield* queue.reslot(later)
        yield* queue.remove(done)
        return { groups: new Set(due.map((e) => `${e.account_id}/${e.saved_search_id}/${e.slot.toISOString()}`)).size, delivered }
      })).pipe(Effect.orDie)

    const savedSearchEvents = (now: Date) =>
      Effect.gen(function*() {
        while ((yield* queueMatches(now)) === pageSize) { /* the next page */ }
        let delivered = 0
        for (;;) {
          const told = yield* tellMatches(now)
          delivered += told.delivered
          if (told.groups < groupsPerPass) return delivered
        }
      })

    const keyEvents = (now: Date) =>
      Effect.gen(function*() {
        let delivered = 0
        let after: EventPosition | null = null
        for (;;) {
          const page: ReadonlyArray<AccountEvent> = yield* events.since(new Date(now.getTime() - eventLookback), after, pageSize)
          delivered += yield* inbox.deliver(page.map(keyRegeneratedItem))
          if (page.length < pageSize) return delivered
          after = page[page.length - 1]!
        }
      })

    /**
     * H3: each item new to the inbox is also a `credits.threshold` event, in the same
     * transaction: the inbox's key makes both once per threshold and period.
     */
    const creditsPage = (page: ReadonlyArray<CreditUsage>, percent: (typeof creditThresholds)[number], now: Date) =>
      sql.withTransaction(Effect.gen(function*() {
        const fresh = yield* inbox.deliverFresh(page.map((usage) => creditsItem(usage, percent, now)))
        yield* events.emit(fresh.map((item) => ({ accountId: item.accountId, type: "credits.threshold" as const, data: item.data })), now)
        return fresh.length
      })).pipe(Effect.orDie)

    const credits = (now: Date, percent: (typeof creditThresholds)[number]) =>
      Effect.gen(function*() {
        let delivered = 0
        let after: AccountId | null = null
        for (;;) {
          const page: ReadonlyArray<CreditUsage> = yield* events.creditUsage(now, percent, after, pageSize)
          delivered += yield* creditsPage(page, percent, now)
          if (page.length < pageSize) return delivered
          after = page[page.length - 1]!.account_id
        }
      })

    /** One look at the events and the meters; how many items were new. */
    const pass = (now: Date) =>
      Effect.map(
        Effect.all([keyEvents(now), savedSearchEvents(now), ...creditThresholds.map((percent) => credits(now, percent))]),
        (counts) => counts.reduce((a, b) => a + b, 0)
      )

    const job = yield* passes("Notification alerts pass", every, pass)

    return {
      /** One pass at the clock's instant; how many items were new. */
      pass: Effect.withSpan(Effect.flatMap(now, pass), "AccountAlerts.pass", serviceSpan),
      /** The instants of the passes finished from now on, while the scope lasts. */
      passes: job.subscribe,
      /** The loop, for a layer to fork: a pass at start, then one every `NOTIFICATION_ALERTS_EVERY`. */
      run: job.run
    }
  }),
  dependencies: [AccountEvents.Default, Inbox.Default, SavedSearches.Default, DigestPreferences.Default, DigestQueueRepo.Default]
}) {}
