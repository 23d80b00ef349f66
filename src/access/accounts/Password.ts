import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

/**
 * Passwords are stored as scrypt hashes (spec: INTERPRETATIONS S1): `scrypt$N$r$p$salt$hash`.
 * The cost is N = 2^17, r = 8, p = 1 (OWASP's guidance; 128 MiB and about a quarter of a second
 * a hash here); a hash stored with a lower cost is hashed again at the next sign-in (issue 28).
 */
export interface Cost {
  readonly N: number
  readonly r: number
  readonly p: number
}
export const cost: Cost = { N: 2 ** 17, r: 8, p: 1 }

/** Room for the largest cost a stored hash may name: 128 * N * r bytes, and some. */
const maxmem = 256 * 1024 * 1024

const derive = (password: string, salt: Buffer, { N, p, r }: Cost) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password, salt, 32, { N, r, p, maxmem }, (error, key) => resume(error ? Effect.die(error) : Effect.succeed(key)))
  })

/** A new hash of `password`, at `at` (the current cost unless a test asks for an older one). */
export const hash = (password: string, at: Cost = cost) =>
  Effect.flatMap(Effect.sync(() => randomBytes(16)), (salt) =>
    Effect.map(derive(password, salt, at), (key) => `scrypt$${at.N}$${at.r}$${at.p}$${salt.toString("base64")}$${key.toString("base64")}`))

const parse = (stored: string) => {
  const [scheme, n, r, p, salt, key] = stored.split("$")
  return scheme !== "scrypt" || !salt || !key ? undefined : { cost: { N: Number(n), r: Number(r), p: Number(p) }, salt, key }
}

export const verify = (password: string, stored: string) => {
  const parsed = parse(stored)
  if (parsed === undefined) return Effect.succeed(false)
  return Effect.map(
    derive(password, Buffer.from(parsed.salt, "base64"), parsed.cost),
    (derived) => timingSafeEqual(derived, Buffer.from(parsed.key, "base64"))
  )
}

/** Whether a stored hash was made at less than the current cost. */
export const isWeak = (stored: string) => {
  const parsed = parse(stored)
  return parsed === undefined || parsed.cost.N < cost.N || parsed.cost.r < cost.r || parsed.cost.p < cost.p
}
