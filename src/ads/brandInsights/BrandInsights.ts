import { Clock, Effect, Option } from "effect"
import { InvalidRequest, NotFound } from "../../kernel/Errors.js"
import { BrandId, idOf } from "../../kernel/Ids.js"
import { earliestDay } from "../../kernel/Fields.js"
import { addDays, dayMillis, dayOf, daysIn, startOf, type UtcDay } from "../../kernel/UtcDay.js"
import { StoredTranscripts } from "../../transcripts/StoredTranscripts.js"
import { libraries } from "../library/Filters.js"
import { type BrandRef, brandsPrefix, defaultPeriodDays, maxPeriodDays, type TabAnswer, type TabList, type TabQuery } from "./Api.js"
import { BrandInsightsRepo, type SqlTab, type TabScope } from "./BrandInsightsRepo.js"
import { adsShown, brandTabs, type TabData, type TabName, tabNames } from "./Tabs.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

const brandNotFound = new NotFound({ error: "Brand not found" })

/** The Monday of a day's week (UTC). */
const mondayOf = (day: UtcDay): UtcDay => dayOf(startOf(day) - ((new Date(startOf(day)).getUTCDay() + 6) % 7) * dayMillis)

/** Every Monday from `from`'s week to `to`'s, and every first of a month from `from`'s month to `to`'s. */
const calendar = (from: UtcDay, to: UtcDay) => {
  const weeks: Array<UtcDay> = []
  for (let week = mondayOf(from); week <= to; week = addDays(week, 7)) weeks.push(week)
  const months: Array<UtcDay> = []
  for (let month = `${from.slice(0, 7)}-01`; month <= to; month = dayOf(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1))) {
    months.push(month)
  }
  return { weeks, months }
}

const wordsIn = (text: string) => text.split(/\s+/).filter((word) => word.length > 0).length

/**
 * The brand insight tabs (issue 19; INTERPRETATIONS W2): the period from the query (default
 * the last 90 days by `Clock`), the brand and the advertisers standing for it in the libraries
 * asked for, then the tab's declared query. Bad input is refused before the brand is looked up.
 */
export class BrandInsights extends Effect.Service<BrandInsights>()("adintel/BrandInsights", {
  effect: Effect.gen(function*() {
    const repo = yield* BrandInsightsRepo
    const stored = yield* StoredTranscripts

    /** `transcripts`: the video ads by the SQL, their stored transcripts by the transcripts product. */
    const transcripts = (scope: TabScope): Effect.Effect<TabData<"transcripts">> =>
      Effect.gen(function*() {
        const videos = yield* repo.videoAds(scope)
        const texts = yield* stored.ofAds(videos.map((video) => video.ad_id))
        const transcribed = videos.filter((video) => texts.has(video.ad_id))
        return {
          video_ads: videos.length,
          transcribed: transcribed.length,
          transcripts: transcribed.slice(0, adsShown).map((video) => {
            const transcript = texts.get(video.ad_id)!
            return { ...video, words: wordsIn(transcript), transcript }
          })
        }
      })

    const sqlTabs = tabNames.filter((tab): tab is SqlTab => tab !== "transcripts")
    /** Every tab's answer, by name: the declared SQL, and `transcripts`. */
    const answers = {
      // (`as`: entries built in a loop are typed as any tab's; each is its own tab's `repo.data`.)
      ...(Object.fromEntries(sqlTabs.map((tab) => [tab, (scope: TabScope) => repo.data(tab, scope)])) as {
        readonly [T in SqlTab]: (scope: TabScope) => Effect.Effect<TabData<T>>
      }),
      transcripts
    } satisfies { readonly [T in TabName]: (scope: TabScope) => Effect.Effect<TabData<T>> }

    /** The period asked for, or the default; refused when backwards or too long. */
    const periodOf = (query: TabQuery) =>
      Effect.gen(function*() {
        const today = dayOf(yield* Clock.currentTimeMillis)
        const dateTo = query.date_to ?? today
        const fallback = addDays(dateTo, -(defaultPeriodDays - 1))
        const dateFrom = query.date_from ?? (fallback < earliestDay ? earliestDay : fallback)
        if (dateFrom > dateTo) return yield* Effect.fail(new InvalidRequest({ error: "date_from: must not be after date_to" }))
        if (daysIn(dateFrom, dateTo) > maxPeriodDays) {
          return yield* Effect.fail(new InvalidRequest({ error: `date_from: the period is at most ${maxPeriodDays} days` }))
        }
        return { date_from: dateFrom, date_to: dateTo }
      })

    return {
      /** `GET /api/v1/brands/tabs`: every declared tab. */
      list: {
        success: true,
        data: tabNames.map((name) => ({ name, path: `${brandsPrefix}/${name}`, description: brandTabs[name].description }))
      } satisfies TabList,

      tab: Effect.fn("BrandInsights.tab", serviceSpan)(function*<T extends TabName>(tab: T, query: TabQuery): Effect.fn.Return<TabAnswer<T>, InvalidRequest | NotFound> {
        const period = yield* periodOf(query)
        const brand = yield* Effect.flatMap(
          Effect.flatMap(idOf(BrandId, brandNotFound)(query.id), repo.brand),
          Option.match({ onNone: () => Effect.fail(brandNotFound), onSome: Effect.succeed })
        )
        const advertisers = yield* repo.advertisers(brand, query.library ?? libraries)
        const at = (days: number) => new Date(startOf(addDays(period.date_to, -days)))
        const scope: TabScope = {
          advertisers,
          start: new Date(startOf(period.date_from)),
          end: new Date(startOf(addDays(period.date_to, 1))),
          dateFrom: period.date_from,
          dateTo: period.date_to,
          ...calendar(period.date_from, period.date_to),
          since: { d1: at(0), d7: at(6), d14: at(13), d30: at(29) },
          countries: query.country
        }
        const data = yield* answers[tab](scope)
        // The answer's plain `BrandRef` (a branded id in it makes the object too unlike `TabAnswer<T>` for the `as` below).
        const named: typeof BrandRef.Type = { id: brand.id, name: brand.name }
        // (`as`: TypeScript does not resolve the distributive `TabAnswer<T>` for a type parameter; this is tab `T`'s.)
        return { success: true, brand: named, period, data } as TabAnswer<T>
      })
    }
  }),
  dependencies: [BrandInsightsRepo.Default, StoredTranscripts.Default]
}) {}
