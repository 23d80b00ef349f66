import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto"
import { Effect, Either, Redacted, Schema } from "effect"
import { InvalidRequest } from "../../kernel/Errors.js"
import { keySecret } from "../../access/gateway/KeySealer.js"
import { serviceSpan } from "../../platform/telemetry/Tracing.js"

/**
 * INTERPRETATIONS P1: an opaque, signed, keyset scroll token. The payload (which search, its
 * filters and sort, the page size and the last row's sort key) is base64url JSON followed by
 * an HMAC-SHA256 over it, keyed by a key derived from the server secret, so every replica
 * accepts the tokens of the others and nobody can forge or alter one.
 */

export const ScrollState = Schema.Struct({
  /** The search it continues: a library route or magic-ai; a token of another search is refused. */
  search: Schema.String,
  filters: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  sort: Schema.String,
  limit: Schema.Int,
  /** The last row's sort value (text, exact) and id. */
  after: Schema.Tuple(Schema.NullOr(Schema.String), Schema.String),
  /** Anything else the search needs to go on (magic-ai: what it compares with). */
  extra: Schema.optional(Schema.Unknown)
})
export type ScrollState = typeof ScrollState.Type

const decodeState = Schema.decodeUnknownEither(Schema.parseJson(ScrollState))

export const invalidToken = new InvalidRequest({ error: "scroll_token: invalid or altered token; start again without it" })

export class ScrollToken extends Effect.Service<ScrollToken>()("adintel/ScrollToken", {
  effect: Effect.map(keySecret, (secret) => {
    const key = Buffer.from(hkdfSync("sha256", Buffer.from(Redacted.value(secret), "utf8"), "adintel", "scroll-token-signing", 32))
    const mac = (payload: string) => createHmac("sha256", key).update(payload).digest().subarray(0, 18)
    return {
      sign: (state: ScrollState): string => {
        const payload = Buffer.from(JSON.stringify(state), "utf8").toString("base64url")
        return `${payload}.${mac(payload).toString("base64url")}`
      },
      /** The state a token carries, if it was signed here and is meant for `search`. */
      open: Effect.fn("ScrollToken.open", serviceSpan)((token: string, search: string): Effect.Effect<ScrollState, InvalidRequest> => {
        const [payload, signature, ...rest] = token.split(".")
        if (payload === undefined || signature === undefined || rest.length > 0) return Effect.fail(invalidToken)
        const given = Buffer.from(signature, "base64url")
        const expected = mac(payload)
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Effect.fail(invalidToken)
        const state = decodeState(Buffer.from(payload, "base64url").toString("utf8"))
        if (Either.isLeft(state)) return Effect.fail(invalidToken)
        if (state.right.search !== search) {
          return Effect.fail(new InvalidRequest({ error: `scroll_token: this token continues another search (${state.right.search})` }))
        }
        return Effect.succeed(state.right)
      })
    }
  })
}) {}
