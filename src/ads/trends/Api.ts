import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { ApiError, envelope, fixed } from "../../kernel/Envelope.js"
import { CountryCode } from "../../kernel/Fields.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { fieldsOf } from "../../kernel/RouteParams.js"
import { ShopRecordId } from "../../shop/catalog/Entities.js"
import { TrendingProduct } from "../../shop/search/Api.js"
import { libraries } from "../library/Filters.js"
import { maxPhraseWords } from "./Phrases.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, tool } from "../../kernel/McpTool.js"
import { nichePattern, windowDays } from "./Windows.js"

/**
 * Trends (issue 20; spec: `POST /api/v1/trends/*`; INTERPRETATIONS L2): phrases and hooks of
 * new ads that rose most, one phrase's daily series, and the short-video shop's products whose
 * units grew most. Contract only.
 */

const prefix = "/api/v1/trends"

export type WindowDays = (typeof windowDays)[number]
export const defaultWindowDays: WindowDays = 7
export const maxLimit = 100
export const defaultLimit = 20
/** The minimum-support rule: a term must be in at least this many new ads of the window (unless `min_count` says otherwise). */
export const defaultMinCount = 5
export const maxMinCount = 100_000
/** Days of a phrase's history, up to yesterday. */
export const historyDays = 365

const message = (text: string) => ({ message: () => ({ message: text, override: true }) })
const Niche = Schema.String.pipe(Schema.pattern(nichePattern), Schema.annotations(message("must be a niche such as beauty")))
const WindowDaysSchema = Schema.Literal(...windowDays).annotations({
  ...message("must be 7, 30 or 90"),
  description: `The window: this many days up to yesterday (UTC), 7, 30 or 90 (default ${defaultWindowDays}), against as many days before it`
})

/** Which ads a trend reads. */
const scope = {
  library: param.same(Choice(...libraries).annotations({ description: "Ads of this library only (default all four)" })),
  niche: param.same(Niche.annotations({ description: "Ads of this niche only" })),
  country: param.same(CountryCode.annotations({ description: "Ads targeting this country only (ISO 3166-1 alpha-2)" }))
}

const risingParams = {
  ...scope,
  window_days: param.same(WindowDaysSchema),
  limit: param.int(1, maxLimit, `How many, 1 to ${maxLimit} (default ${defaultLimit})`),
  min_count: param.int(1, maxMinCount, `Only terms of at least this many new ads in the window (default ${defaultMinCount}): noise stays out`)
}

export const RisingBody = strictStruct(fieldsOf(risingParams, "body"), "body")
export type RisingBody = typeof RisingBody.Type

export const HistoryBody = strictStruct(
  fieldsOf({ ...scope, topic: param.text(200, `The phrase: one to ${maxPhraseWords} words (case and punctuation ignored)`) }, "body", "topic"),
  "body"
)
export type HistoryBody = typeof HistoryBody.Type

export const ProductsBody = strictStruct(fieldsOf({
  country: param.same(CountryCode.annotations({ description: "Shop region; default: the account's country (request-country), else US" })),
  category_id: param.same(ShopRecordId.annotations({ description: "A category's id: it and every category below it" })),
  window_days: param.same(WindowDaysSchema),
  limit: param.int(1, maxLimit, `How many, 1 to ${maxLimit} (default ${defaultLimit})`)
}, "body"), "body")
export type ProductsBody = typeof ProductsBody.Type

export const TrendWindow = Schema.Struct({
  date_from: Schema.String.annotations({ description: "First day of the window (UTC), YYYY-MM-DD" }),
  date_to: Schema.String.annotations({ description: "Last day of the window (UTC): yesterday" })
})
export type TrendWindow = typeof TrendWindow.Type

const counts = {
  count: Schema.Int.annotations({ description: "New ads (first seen in the window) using it" }),
  previous_count: Schema.Int.annotations({ description: "New ads using it in the window of the same length before" }),
  growth: Schema.Number.annotations({ description: "Smoothed growth: (count + 10) / (previous_count + 10) - 1, to 4 decimals" })
}

export const Topic = Schema.Struct({ topic: Schema.String.annotations({ description: "A phrase of one to three words, lowercased" }), ...counts })
export type Topic = typeof Topic.Type
export const Hook = Schema.Struct({ hook: Schema.String.annotations({ description: "An opening line, lowercased" }), ...counts })
export type Hook = typeof Hook.Type

const rising = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Struct({
    success: Schema.Literal(true),
    window: TrendWindow,
    data: Schema.Array(item).annotations({ description: "Most grown first, then most used, then A to Z" })
  })
export const Topics = rising(Topic)
export const Hooks = rising(Hook)
export const Products = Schema.Struct({
  success: Schema.Literal(true),
  window: TrendWindow,
  data: Schema.Array(TrendingProduct).annotations({ description: "Highest units growth first, then larger current units, then id" })
})

export const History = Schema.Struct({
  success: Schema.Literal(true),
  topic: Schema.String.annotations({ description: "The phrase as counted: its words, lowercased" }),
  window: TrendWindow,
  data: Schema.Array(Schema.Struct({
    day: Schema.String.annotations({ description: "UTC day" }),
    count: Schema.Int.annotations({ description: "New ads (first seen that day) using the phrase" })
  })).annotations({ description: `Every day of the ${historyDays} up to yesterday, oldest first` })
})

/**
 * The rankings are not built yet (a first start, or a database migrated to count every ad
 * again): a ranking does not wait for the build (issue 28). A 5xx: the credit is given back.
 */
export class TrendsCounting extends ApiError<TrendsCounting>()("TrendsCounting", {
  error: fixed("Trends are being counted; try again in a minute.")
}, { status: 503 }) {}
export const TrendsCountingBody = envelope(TrendsCounting)

const risingNote =
  "Counts are of ads first seen in the window whose copy (headline, body, description) uses the phrase: one to three words, neither starting nor ending with a stop word of the ad's language, a number or a percentage. Only terms of at least `min_count` new ads that rose (count > previous_count) are listed; a phrase within a longer listed one used by at least 90 % as many ads is folded into it."

export class TrendsApi extends metered(
  HttpApiGroup.make("trends").annotateContext(inProduct("Trends"))
    .add(
      HttpApiEndpoint.post("topics", `${prefix}/topics`)
        .annotate(McpTool, tool("trending_topics", {
          title: "Rising ad topics",
          description: "Phrases (one to three words) whose use in new ads rose most in the last window_days (7, 30 or 90) against the window before, with counts and growth; filters library, niche, country, language; limit 1-100."
        }))
        .setPayload(RisingBody)
        .addSuccess(Topics)
        .addError(TrendsCountingBody)
        .annotate(OpenApi.Summary, "Phrases whose use in new ads rose most against the previous window of the same length")
        .annotate(OpenApi.Description, risingNote)
    )
    .add(
      HttpApiEndpoint.post("hooks", `${prefix}/hooks`)
        .annotate(McpTool, tool("trending_hooks", {
          title: "Rising ad hooks",
          description: "Opening lines of ads whose use rose most in the last window_days against the window before; the same filters as trending_topics."
        }))
        .setPayload(RisingBody)
        .addSuccess(Hooks)
        .addError(TrendsCountingBody)
        .annotate(OpenApi.Summary, "Opening lines (hooks) of new ads that rose most against the previous window")
        .annotate(OpenApi.Description, "A hook is the ad's AI-tagged hook, else its body's first sentence, lowercased. Only hooks of at least `min_count` new ads that rose are listed.")
    )
    .add(
      HttpApiEndpoint.post("history", `${prefix}/history`)
        .annotate(McpTool, tool("topic_history", {
          title: "A phrase's daily use",
          description: "How many new ads used a phrase (topic) on each of the last 365 days."
        }))
        .setPayload(HistoryBody)
        .addSuccess(History)
        .annotate(OpenApi.Summary, `One phrase's daily count of new ads over the ${historyDays} days up to yesterday`)
        .annotate(OpenApi.Description, "A phrase no ad uses answers zeros.")
    )
    .add(
      HttpApiEndpoint.post("products", `${prefix}/products`)
        .annotate(McpTool, tool("trending_products_by_units", {
          title: "Short-video shop products rising by units",
          description: "The short-video shop's products whose units sold grew most over recent days."
        }))
        .setPayload(ProductsBody)
        .addSuccess(Products)
        .annotate(OpenApi.Summary, "Short-video shop products whose units grew most over the window against the one before")
        .annotate(OpenApi.Description, "The short-video shop's trending ranking by units: only products sold in both windows; each item is the products-explore view plus growth, current and previous. Takes no daily search.")
    )
) {}

/** Trends' part of the contract (kernel/Contract.ts). */
export class TrendsContract extends contractPart().add(TrendsApi) {}
