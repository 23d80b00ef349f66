import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, envelope, fixed } from "../../kernel/Envelope.js"
import { CountryCode } from "../../kernel/Fields.js"
import { metered } from "../../access/gateway/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { legacy } from "../../access/session/Legacy.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool, tool } from "../../kernel/McpTool.js"

/** Every short-video shop path starts here (spec: Endpoints, "Short-video shop API"). */
export const shopPrefix = "/api/v1/clipapp-shop"

/** spec: Errors, 403 daily search quota row; INTERPRETATIONS G7. No `success` field. */
export class DailyQuota extends ApiError<DailyQuota>()("DailyQuota", {
  error: fixed("insufficient_credits"),
  message: fixed("You have used up your daily search quota. Upgrade to Premium for unlimited searches."),
  upgrade: fixed("premium")
}, { status: 403, bare: true }) {}
export const DailyQuotaBody = envelope(DailyQuota)

/** spec: INTERPRETATIONS G9. */
export class UnknownShopEndpoint extends ApiError<UnknownShopEndpoint>()("UnknownShopEndpoint", {
  error: Schema.String
}, { status: 404 }) {
  static readonly of = (method: string, path: string) =>
    new UnknownShopEndpoint({ error: `Unknown shop endpoint: ${method} ${path}` })
}
export const UnknownShopEndpointBody = envelope(UnknownShopEndpoint)

/** G7: `credits_remaining` is the daily searches left, null when unlimited. */
export const ShopCreditsResponse = Schema.Struct({
  success: Schema.Literal(true),
  credits_remaining: Schema.NullOr(Schema.Int),
  daily_limit: Schema.NullOr(Schema.Int),
  resets_at: Schema.String,
  unlimited: Schema.Boolean
})
export type ShopCreditsResponse = typeof ShopCreditsResponse.Type

/**
 * Any method on any path under the prefix that no endpoint registers, a known path with a
 * verb it does not register included, is metered and answered 404 (G9). The router prefers
 * every registered path over these wildcards (and ignores a trailing slash, so the bare
 * prefix covers `/api/v1/clipapp-shop/`). Left out of the OpenAPI document.
 */
// HEAD is answered as GET by the router, so a known GET path keeps working and unknown ones reach
// the GET wildcard.
export const unknownPathMethods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const
type Method = (typeof unknownPathMethods)[number]

const unknownPath = <M extends Method, const Where extends "Below" | "Prefix">(method: M, where: Where) =>
  HttpApiEndpoint.make(method)(`unknown${method}${where}`, where === "Prefix" ? shopPrefix : `${shopPrefix}/*`)
    .addError(UnknownShopEndpointBody)
    .annotate(OpenApi.Exclude, true)
    .annotate(McpTool, noTool("G9: the answer for an unknown short-video shop path"))

export type UnknownPath = ReturnType<typeof unknownPath<Method, "Below" | "Prefix">>

export const unknownPathNames = unknownPathMethods.flatMap((method) =>
  (["Below", "Prefix"] as const).map((where) => `unknown${method}${where}` as const)
)

/** Adds the G9 wildcards to a group: the short-video shop group carries them. */
const withUnknownPaths = <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>
) =>
  unknownPathMethods.reduce(
    (acc, method) => acc.add(unknownPath(method, "Below")).add(unknownPath(method, "Prefix")),
    group as HttpApiGroup.HttpApiGroup<Id, Endpoints | UnknownPath, E, R>
  )

export const RequestCountry = Schema.Struct({
  country: Schema.optional(CountryCode.annotations({ description: "Set the account's shop country to this (ISO 3166-1 alpha-2)" }))
}).annotations({ parseOptions: { onExcessProperty: "error" } })

export const CountryAnswer = Schema.Struct({
  success: Schema.Literal(true),
  country: Schema.String.annotations({ description: "The country explore and detail calls use when they name none" })
})

export class ShopApi extends metered(
  withUnknownPaths(
    HttpApiGroup.make("shop").annotateContext(inProduct("Short-video shop"))
      .add(
        HttpApiEndpoint.get("credits", `${shopPrefix}/credits`)
          .addSuccess(ShopCreditsResponse)
          .annotate(OpenApi.Summary, "Daily short-video shop searches left (1 credit); the cheap key check")
          .annotate(McpTool, tool("shop_search_credits", {
            title: "Daily short-video searches left",
            description: "How many short-video shop searches (explore and count calls) the account has left today, and when they reset."
          }))
      )
      .add(
        HttpApiEndpoint.post("requestCountry", `${shopPrefix}/request-country`)
          .setPayload(RequestCountry)
          .addSuccess(CountryAnswer)
          .annotate(OpenApi.Summary, "Set (with `country`) or read the account's shop country")
          .annotate(McpTool, noTool("Account settings are not research"))
      )
  )
) {}

/** The shop account's part of the contract (kernel/Contract.ts), also under the browser session's legacy prefix (S4). */
export class ShopAccountContract extends contractPart()
  .add(ShopApi)
  .add(legacy(ShopApi, { from: shopPrefix, to: "/api/clipapp-shop" }))
{}
