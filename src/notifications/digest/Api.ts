import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { metered } from "../../access/gateway/Api.js"
import { legacy } from "../../access/session/Legacy.js"
import { brandsPrefix, legacyBrandsPrefix } from "../../ads/brands/Api.js"
import { contractPart } from "../../kernel/Contract.js"
import { Choice } from "../../kernel/Params.js"
import { param, strictStruct } from "../../kernel/QueryParams.js"
import { inProduct } from "../../kernel/Products.js"
import { McpTool, noTool, tool } from "../../kernel/McpTool.js"

/**
 * The brand digest's preferences (issue 19; INTERPRETATIONS W6), at the brand tracker's path
 * `/api/v1/brands/notifications/prefs` (and its session twin). Contract only.
 */

export const prefsPath = `${brandsPrefix}/notifications/prefs`

export const frequencies = ["off", "daily", "weekly"] as const
export const Frequency = Choice(...frequencies)
export type Frequency = typeof Frequency.Type

/** W6: `{ frequency, email, hour_utc }`. */
export const DigestPrefs = Schema.Struct({
  frequency: Frequency.annotations({ description: "`off`, `daily`, or `weekly` (on Mondays)" }),
  email: Schema.Boolean.annotations({ description: "Also send the digest by e-mail (when the service has an SMTP server)" }),
  hour_utc: Schema.Int.annotations({ description: "The hour of the day (UTC, 0-23) the digest is made at" })
}).annotations({ identifier: "DigestPrefs" })
export type DigestPrefs = typeof DigestPrefs.Type

export const DigestPrefsUpdate = strictStruct({
  frequency: Schema.optional(Frequency.annotations({ description: "`off`, `daily` or `weekly`" })),
  email: Schema.optional(param.bool("Also send the digest by e-mail").body),
  hour_utc: Schema.optional(param.int(0, 23, "The hour of the day (UTC) the digest is made at").body)
}, "body")
export type DigestPrefsUpdate = typeof DigestPrefsUpdate.Type

export const DigestPrefsAnswer = Schema.Struct({ success: Schema.Literal(true), prefs: DigestPrefs })

export class DigestPrefsApi extends metered(
  HttpApiGroup.make("brandDigestPrefs").annotateContext(inProduct("Brands"))
    .add(
      HttpApiEndpoint.get("get", prefsPath)
        .annotate(McpTool, tool("get_digest_preferences", {
          title: "Brand digest preferences",
          description: "How often (off, daily, weekly), at which UTC hour and whether by e-mail the account gets the new-ads digest of its tracked brands."
        }))
        .addSuccess(DigestPrefsAnswer)
        .annotate(OpenApi.Summary, "The account's brand digest preferences")
        .annotate(OpenApi.Description, "An account that never set them has the defaults: daily at 08:00 UTC, with e-mail.")
    )
    .add(
      HttpApiEndpoint.post("update", prefsPath)
        .annotate(McpTool, noTool("Changing digest preferences is left to the dashboard"))
        .setPayload(DigestPrefsUpdate)
        .addSuccess(DigestPrefsAnswer)
        .annotate(OpenApi.Summary, "Change any of the digest preferences; the answer is all of them")
    )
) {}

/** Digest preferences' part of the contract (kernel/Contract.ts), also under the browser session (S4, S5). */
export class DigestPrefsContract extends contractPart()
  .add(DigestPrefsApi)
  .add(legacy(DigestPrefsApi, { from: brandsPrefix, to: legacyBrandsPrefix }))
{}
