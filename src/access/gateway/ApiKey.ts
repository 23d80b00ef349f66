import { createHash, randomBytes } from "node:crypto"
import { Option } from "effect"

/**
 * API keys (spec: INTERPRETATIONS G13): `adi_` + 48 lowercase hex characters, 192 random bits.
 * Only the SHA-256 digest is looked up; the clear key is kept sealed (see `KeySealer`).
 */
export const ApiKeyPattern = /^adi_[0-9a-f]{48}$/

export const generate = (): string => `adi_${randomBytes(24).toString("hex")}`

export const digest = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest()

export const isWellFormed = (key: string): boolean => ApiKeyPattern.test(key)

/** Where a key may be sent, in the order they are read. */
export interface KeySources {
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly query: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
}

const bearer = /^bearer\s+(.*)$/i

/**
 * spec: Authentication, "the first non-empty value wins": `X-API-Key`, then
 * `Authorization: Bearer`, then `?api_key`. Another Authorization scheme is ignored, not an error.
 */
export const fromRequest = ({ headers, query }: KeySources): Option.Option<string> => {
  const header = headers["x-api-key"]?.trim()
  if (header) return Option.some(header)
  const token = bearer.exec(headers["authorization"]?.trim() ?? "")?.[1]?.trim()
  if (token) return Option.some(token)
  const param = query["api_key"]
  const value = (typeof param === "string" ? param : param?.find((v) => v.trim() !== ""))?.trim()
  return value ? Option.some(value) : Option.none()
}

/** A display form that identifies a key without revealing it. */
export const hint = (key: string): string => `${key.slice(0, 8)}…${key.slice(-4)}`
